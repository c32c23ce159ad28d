// The owner API of imports, inside the owner scope (ownerSiteHook has checked the site's key before the body
// is read):
//   POST /api/v1/sites/:name/imports?format=auto|csv|ndjson|onesignal&dryRun=1&vapidKeyId=ID   the file as the body
//   POST /api/v1/sites/:name/imports/vapid-key   {publicKey, privateKey}: the previous service's key pair joins the
//        site's key ring (server/keys/); the reply's keyId is the vapidKeyId of the import
// The body is read as a stream (text/csv, application/x-ndjson, application/octet-stream, text/plain), never
// held whole, and the reply is the import's report once the last row is stored.
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { ServerError } from '../errors.ts';
import { ownedSite } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { addLegacyVapidKey, currentVapidKeyId, signingKeys } from '../keys/index.ts';
import { IMPORT_BODY_LIMIT, type ImportReply, type ImportVapidKeyReply } from '../../contract/imports.ts';
import { importSubscribers } from './import-subscribers.ts';
import { IMPORT_REPLY, IMPORT_VAPID_KEY_REPLY, importQuery, importVapidKeyBody } from './schemas.ts';

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

export async function importRoutes(fastify: FastifyInstance, { db, pushServices, stateDir }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // This plugin's own parsers: the body reaches the handler unread, as the request's stream.
  app.addContentTypeParser(IMPORT_CONTENT_TYPES, (_request, payload, done) => done(null, payload));

  app.post(
    '/api/v1/sites/:name/imports',
    {
      config: { role: 'owner', audit: 'import' },
      schema: { params: SITE_PARAMS, querystring: importQuery, response: { 200: IMPORT_REPLY } },
    },
    async (request): Promise<ImportReply> => {
      const site = ownedSite(request);
      const body = request.body as IncomingMessage | undefined;
      if (!body || typeof (body as { pipe?: unknown }).pipe !== 'function') {
        throw new ServerError('E_IMPORT_FORMAT', { problem: `send the file as the body, as ${IMPORT_CONTENT_TYPES.join(', ')}` });
      }
      const { vapidKeyId } = request.query;
      if (vapidKeyId !== undefined && !(await signingKeys(stateDir, site)).pairs.has(vapidKeyId)) {
        throw new ServerError('E_IMPORT_PARAM', {
          param: 'vapidKeyId',
          problem: `no key ${vapidKeyId} on the key ring of ${site.name} that can sign: add the key pair first (POST imports/vapid-key)`,
        });
      }
      const report = await importSubscribers(db, limited(body), {
        site,
        format: request.query.format ?? 'auto',
        dryRun: request.query.dryRun === true,
        pushServices,
        vapidKeyId: vapidKeyId === currentVapidKeyId(site) ? null : vapidKeyId,
      });
      return { status: 'success', report };
    },
  );

  app.post(
    '/api/v1/sites/:name/imports/vapid-key',
    {
      config: { role: 'owner', audit: 'import.vapid-key' },
      schema: { params: SITE_PARAMS, body: importVapidKeyBody, response: { 200: IMPORT_VAPID_KEY_REPLY } },
    },
    async (request): Promise<ImportVapidKeyReply> => {
      const site = ownedSite(request);
      const keyId = await addLegacyVapidKey(stateDir, site, request.body, 'vapidKey');
      return { status: 'success', keyId, current: keyId === currentVapidKeyId(site) };
    },
  );
}
