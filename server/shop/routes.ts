// Shop orders (spec section 3, "Shop order event data"): the shop's back end posts an order with the site's
// owner key, and the order page's script reads it by id through /api/v1/shopify/getOrderDetails. An order's
// items, totals and coupon are the buyer's: the subscriber the shop named (its browser showing its secret), or
// the bearer of the one-time read token the order was stored with, which the shop puts on the buyer's order page
// (shop-orders.ts). Anyone else learns the order id only, an unknown order alike (the order event still fires for a
// visitor who is not its buyer, without its details).
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { requireOwner } from '../http/owner-auth.ts';
import { checkCallbackHook, sendReply } from '../http/reply.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { requireOrigin } from '../http/site-access.ts';
import { cartAdded, orderPlaced, productViewed } from '../automations/index.ts';
import { requireProvenSubscriber } from '../subscribers/index.ts';
import { conversionWindowOf } from '../campaigns/index.ts';
import { orderConverted } from '../webhooks/index.ts';
import {
  CART_REPLY,
  cartSchema,
  VIEW_REPLY,
  viewSchema,
  ORDER_DETAILS_REPLY,
  ORDER_STORED_REPLY,
  orderQuerySchema,
  orderSchema,
} from './schemas.ts';
import { readShopOrder, storeShopOrder } from './shop-orders.ts';
import { productOf, recordInterest } from './products.ts';
import type { OrderDetailsReply } from '../../contract/shop-order.ts';

export async function shopRoutes(fastify: FastifyInstance, { db, registry, clock }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // push.js reports the cart event of a subscriber: the abandoned-cart automation's reminder, naming the product.
  app.post('/api/v1/shopify/cart', { schema: { body: cartSchema, response: { 200: CART_REPLY } } }, async (request, reply) => {
    const params = request.body;
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    // Only the subscriber's own browser schedules a message to that subscriber.
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    const { hash: _hash, subscriberId, subscriberSecret: _secret, ...product } = params;
    const now = clock();
    if (product.pId) await recordInterest(db, site.hash, subscriberId, product.pId, 'carted', now);
    const scheduled = await cartAdded(db, site, subscriberId, product, now);
    return sendReply(request, reply, { status: 'success', scheduled });
  });

  // push.js reports a subscriber's product page view (only with tracking consent): browse abandonment, and the
  // interest price drops and back-in-stock messages go to.
  app.post('/api/v1/shopify/view', { schema: { body: viewSchema, response: { 200: VIEW_REPLY } } }, async (request, reply) => {
    const params = request.body;
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    const now = clock();
    await recordInterest(db, site.hash, params.subscriberId, params.pId, 'viewed', now);
    await productViewed(db, site, params.subscriberId, await productOf(db, site.hash, params.pId), now);
    return sendReply(request, reply, { status: 'success', recorded: true });
  });

  app.post('/api/v1/shopify/orders', { schema: { body: orderSchema, response: { 201: ORDER_STORED_REPLY } } }, async (request, reply) => {
    const params = request.body;
    const site = registry.require(params.hash, 'hash');
    await requireOwner(db, request, site);
    const readToken = await storeShopOrder(db, site.hash, params.orderId, params.order, params.subscriberId);
    if (params.subscriberId) await orderPlaced(db, site, params.subscriberId);
    const windowHours = conversionWindowOf(site.config);
    if (params.subscriberId) await orderConverted(db, site.hash, params.orderId, params.subscriberId, windowHours);
    return reply.code(201).send({ status: 'success', orderId: params.orderId, readToken });
  });

  app.get(
    '/api/v1/shopify/getOrderDetails',
    { preValidation: checkCallbackHook, schema: { querystring: orderQuerySchema, response: { 200: ORDER_DETAILS_REPLY } } },
    async (request, reply) => {
      const params = request.query;
      const site = registry.require(params.hash, 'hash');
      requireOrigin(request, site);
      if (params.subscriberId) await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
      const reader = { subscriberId: params.subscriberId, readToken: params.readToken };
      const details = reader.subscriberId || reader.readToken ? await readShopOrder(db, site.hash, params.orderId, reader) : undefined;
      // The order is this subscriber's: their cart reminder is not sent.
      if (details && params.subscriberId) await orderPlaced(db, site, params.subscriberId);
      const order = details
        ? { orderId: params.orderId, ...(details as z.output<typeof orderSchema>['order']) }
        : { orderId: params.orderId };
      return sendReply(request, reply, { status: 'success', order } satisfies OrderDetailsReply);
    },
  );
}
