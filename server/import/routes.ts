// The owner API of imports, inside the owner scope (ownerSiteHook has checked the site's key before the body
// is read):
//   POST /api/v1/sites/:name/imports?format=auto|csv|ndjson|onesignal&dryRun=1   the file as the body
// The body is read as a stream (text/csv, application/x-ndjson, application/octet-stream, text/plain), never
// held whole, and the reply is the import's report once the last row is stored.
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { ServerError } from '../errors.ts';
import { ownedSite } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { IMPORT_BODY_LIMIT, type ImportReply } from '../../contract/imports.ts';
import { importSubscribers } from './import-subscribers.ts';
import { IMPORT_REPLY, importQuery } from './schemas.ts';

export const IMPORT_CONTENT_TYPES = ['text/csv', 'application/x-ndjson', 'application/ndjson', 'application/octet-stream', 'text/plain'];

/** The body's chunks, refused past IMPORT_BODY_LIMIT (the app's 64 KiB limit is for the other calls). */
async function* limited(body: IncomingMessage): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > IMPORT_BODY_LIMIT) throw new ServerError('E_BODY_TOO_LARGE', { limit: IMPORT_BODY_LIMIT });
    yield chunk;
  }
}

export async function importRoutes(fastify: FastifyInstance, { db, pushServices }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // This plugin's own parsers: the body reaches the handler unread, as the request's stream.
  app.addContentTypeParser(IMPORT_CONTENT_TYPES, (_request, payload, done) => done(null, payload));

  app.post(
    '/api/v1/sites/:name/imports',
    { schema: { params: SITE_PARAMS, querystring: importQuery, response: { 200: IMPORT_REPLY } } },
    async (request): Promise<ImportReply> => {
      const site = ownedSite(request);
      const body = request.body as IncomingMessage | undefined;
      if (!body || typeof (body as { pipe?: unknown }).pipe !== 'function') {
        throw new ServerError('E_IMPORT_FORMAT', { problem: `send the file as the body, as ${IMPORT_CONTENT_TYPES.join(', ')}` });
      }
      const report = await importSubscribers(db, limited(body), {
        site,
        format: request.query.format ?? 'auto',
        dryRun: request.query.dryRun === true,
        pushServices,
      });
      return { status: 'success', report };
    },
  );
}
