// Shop orders (spec section 3, "Shop order event data"): the shop's back end posts an order with the site's
// owner key, and the order page's script reads it by id through /api/v1/shopify/getOrderDetails. An order's
// items, totals and coupon are the buyer's: only a subscriber's browser showing its secret reads them, and only
// the subscriber the shop named, or else the first that reads them. Anyone else learns the order id only (the
// order event still fires for a visitor who is not a subscriber, without its details).
import { ServerError } from '../errors.ts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireOwner } from '../http/owner-auth.ts';
import { claimShopOrder, shopOrderExists, storeShopOrder } from './shop-orders.ts';
import { httpUrlParam, optionalText, parseParams, siteHash, subscriberIdParam, subscriberSecretParam, text } from '../http/params.ts';
import { requireProvenSubscriber } from '../subscribers/index.ts';
import { checkCallback, sendReply } from '../http/reply.ts';
import { requireOrigin } from '../http/site-access.ts';
import type { RouteContext } from '../http/route-context.ts';
import { cartAdded, orderPlaced } from '../automations/index.ts';
import type { CartEventForm, CartEventReply } from '../../contract/automations.ts';
import type {
  OrderDetailsQuery,
  OrderDetailsReply,
  ShopOrder,
  ShopOrderItem,
  ShopOrderRequest,
  ShopOrderStoredReply,
} from '../../contract/shop-order.ts';

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

const orderSchema = z.strictObject({
  hash: siteHash,
  orderId,
  order: z.strictObject({
    total: amount,
    shipping: amount.default(0),
    tax: amount.default(0),
    discount: amount.default(0),
    coupon: text(64).optional(),
    items: z.array(orderItem).max(500),
  } satisfies Record<keyof ShopOrder, z.ZodType>),
  subscriberId: subscriberIdParam.optional(),
} satisfies Record<keyof ShopOrderRequest, z.ZodType>);

const orderQuerySchema = z.object({
  hash: siteHash,
  orderId,
  subscriberId: optionalText(subscriberIdParam),
  subscriberSecret: optionalText(subscriberSecretParam),
  callback: optionalText(z.string()),
} satisfies Record<keyof OrderDetailsQuery, z.ZodType>);

const cartSchema = z.strictObject({
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

export async function shopRoutes(app: FastifyInstance, { db, registry, clock }: RouteContext): Promise<void> {
  // push.js reports the cart event of a subscriber: the abandoned-cart automation's reminder, naming the product.
  app.post('/api/v1/shopify/cart', async (request, reply) => {
    const params = parseParams(cartSchema, request.body, 'body');
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    // Only the subscriber's own browser schedules a message to that subscriber.
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    const { hash: _hash, subscriberId, subscriberSecret: _secret, ...product } = params;
    const scheduled = await cartAdded(db, site, subscriberId, product, clock());
    return sendReply(request, reply, { status: 'success', scheduled } satisfies CartEventReply);
  });

  app.post('/api/v1/shopify/orders', async (request, reply) => {
    const params = parseParams(orderSchema, request.body, 'body');
    const site = registry.require(params.hash, 'hash');
    await requireOwner(db, request, site);
    await storeShopOrder(db, site.hash, params.orderId, params.order, params.subscriberId);
    if (params.subscriberId) await orderPlaced(db, site, params.subscriberId);
    return reply.code(201).send({ status: 'success', orderId: params.orderId } satisfies ShopOrderStoredReply);
  });

  app.get('/api/v1/shopify/getOrderDetails', async (request, reply) => {
    checkCallback(request);
    const params = parseParams(orderQuerySchema, request.query, 'query');
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    if (params.subscriberId) await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    const details = params.subscriberId ? await claimShopOrder(db, site.hash, params.orderId, params.subscriberId) : undefined;
    // The order is this subscriber's: their cart reminder is not sent.
    if (details && params.subscriberId) await orderPlaced(db, site, params.subscriberId);
    if (!details && !(await shopOrderExists(db, site.hash, params.orderId))) {
      throw new ServerError('E_ORDER_UNKNOWN', { orderId: params.orderId });
    }
    const order = details
      ? { orderId: params.orderId, ...(details as z.output<typeof orderSchema>['order']) }
      : { orderId: params.orderId };
    return sendReply(request, reply, { status: 'success', order } satisfies OrderDetailsReply);
  });
}
