// The shop's calls: what they take and what they answer (route-schemas.ts).
import { z } from 'zod';
import { httpUrlParam, optionalText, siteHash, subscriberIdParam, subscriberSecretParam, text } from '../http/params.ts';
import { successReply } from '../http/route-schemas.ts';
import type { CartEventForm } from '../../contract/automations.ts';
import type { ProductViewForm } from '../../contract/shop-events.ts';
import { currencySchema } from '../../contract/shop-input.ts';
import type { OrderDetailsQuery, ShopOrder, ShopOrderItem, ShopOrderRequest } from '../../contract/shop-order.ts';

const orderId = text(64, /^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, "_" or "-"');
const amount = z.number().finite().min(0).max(1e9);

const orderItem = z.strictObject({
  pId: z.union([text(64), z.number().finite()], { error: 'must be text (at most 64 characters) or a number' }),
  pName: text(256),
  pPrice: amount,
  pVariant: text(256).optional(),
  pSku: text(128).optional(),
  pBrand: text(128).optional(),
  pQuant: z.int().min(1).max(100_000),
  pImgUrl: httpUrlParam(2048).optional(),
} satisfies Record<keyof ShopOrderItem, z.ZodType>);

export const orderSchema = z.strictObject({
  hash: siteHash,
  orderId,
  order: z.strictObject({
    total: amount,
    currency: currencySchema.optional(),
    shipping: amount.default(0),
    tax: amount.default(0),
    discount: amount.default(0),
    coupon: text(64).optional(),
    items: z.array(orderItem).max(500),
  } satisfies Record<keyof ShopOrder, z.ZodType>),
  subscriberId: subscriberIdParam.optional(),
} satisfies Record<keyof ShopOrderRequest, z.ZodType>);

export const orderQuerySchema = z.object({
  hash: siteHash,
  orderId,
  subscriberId: optionalText(subscriberIdParam),
  subscriberSecret: optionalText(subscriberSecretParam),
  readToken: optionalText(text(64, /^[A-Za-z0-9_-]{1,64}$/, 'must be the read token the order was stored with')),
  callback: optionalText(z.string()),
} satisfies Record<keyof OrderDetailsQuery, z.ZodType>);

export const cartSchema = z.strictObject({
  hash: siteHash,
  subscriberId: subscriberIdParam,
  subscriberSecret: optionalText(subscriberSecretParam),
  pId: optionalText(text(64)),
  pName: text(256).trim().min(1, 'must not be empty'),
  price: optionalText(text(20, /^\d{1,12}(\.\d{1,4})?$/, 'must be a price such as 19.99').transform(Number)),
  // A product page on the site's origin (relative or absolute); another origin is not opened by the reminder.
  pUrl: optionalText(text(2048)),
  pImgUrl: optionalText(httpUrlParam(2048)),
} satisfies Record<keyof CartEventForm, z.ZodType>);

export const viewSchema = z.strictObject({
  hash: siteHash,
  subscriberId: subscriberIdParam,
  subscriberSecret: optionalText(subscriberSecretParam),
  pId: text(64).trim().min(1, 'must not be empty'),
} satisfies Record<keyof ProductViewForm, z.ZodType>);
export const VIEW_REPLY = successReply({ recorded: z.literal(true) });

/** An order as stored and read back: the fields of orderSchema's order, none of them checked again. */
const storedItem = z.object({
  pId: z.union([z.string(), z.number()]),
  pName: z.string(),
  pPrice: z.number(),
  pVariant: z.string().optional(),
  pSku: z.string().optional(),
  pBrand: z.string().optional(),
  pQuant: z.number(),
  pImgUrl: z.string().optional(),
} satisfies Record<keyof ShopOrderItem, z.ZodType>);

export const ORDER_DETAILS_REPLY = successReply({
  order: z.object({
    orderId: z.string(),
    total: z.number().optional(),
    currency: z.string().optional(),
    shipping: z.number().optional(),
    tax: z.number().optional(),
    discount: z.number().optional(),
    coupon: z.string().optional(),
    items: z.array(storedItem).optional(),
  } satisfies Record<keyof ShopOrder | 'orderId', z.ZodType>),
});
export const ORDER_STORED_REPLY = successReply({ orderId: z.string(), readToken: z.string() });
export const CART_REPLY = successReply({ scheduled: z.boolean() });
