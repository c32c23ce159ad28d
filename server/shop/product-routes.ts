// The owner API of a site's product catalogue (docs/automations.md), inside the owner scope:
//   POST /api/v1/sites/:name/products   the shop's products as they are now; a lower price or a product back in
//                                       stock schedules the priceDrop or backInStock messages
import type { FastifyInstance } from 'fastify';
import { ownedSite } from '../http/owner-auth.ts';
import type { RouteContext } from '../http/route-context.ts';
import { successReply, type ZodTypeProvider } from '../http/route-schemas.ts';
import { SITE_PARAMS } from '../http/params.ts';
import { z } from 'zod';
import { productChanged } from '../automations/index.ts';
import { updateProducts } from './products.ts';
import { productsUpdateSchema, type ProductsUpdateReply } from '../../contract/shop-input.ts';

const PRODUCTS_REPLY = successReply({ products: z.int(), priceDrops: z.int(), backInStock: z.int(), scheduled: z.int() });

export async function productRoutes(fastify: FastifyInstance, { db, clock }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/api/v1/sites/:name/products',
    {
      config: { role: 'editor', audit: 'products.update' },
      schema: { params: SITE_PARAMS, body: productsUpdateSchema, response: { 200: PRODUCTS_REPLY } },
    },
    async (request) => {
      const site = ownedSite(request);
      const now = clock();
      const changes = await updateProducts(db, site.hash, request.body.products, now);
      let scheduled = 0;
      for (const { kind, product, change } of changes) scheduled += await productChanged(db, site, kind, product, change, now);
      return {
        status: 'success',
        products: request.body.products.length,
        priceDrops: changes.filter((change) => change.kind === 'priceDrop').length,
        backInStock: changes.filter((change) => change.kind === 'backInStock').length,
        scheduled,
      } satisfies ProductsUpdateReply;
    },
  );
}
