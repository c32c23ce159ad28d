// The owner dashboard at /dashboard/: the built React app (dashboard-build.ts) as static files, registered with the
// prefix /dashboard. The app talks to the owner API on the same origin with the key the owner types in; nothing
// here needs a key.
import { ServerError } from '../errors.ts';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { dashboardFiles } from './dashboard-build.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

// Notification icons and images in the live preview may live on any http(s) host; nothing else leaves the origin.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: http: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const assetParams = z.object({ file: z.string().regex(/^[A-Za-z0-9_.-]{1,200}$/, 'must be a file name of the dashboard') });

async function builtDir(): Promise<string> {
  try {
    return (await dashboardFiles()).dir;
  } catch (error) {
    throw new ServerError('E_DASHBOARD_UNAVAILABLE', { reason: (error as Error).message });
  }
}

function secured(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer');
}

// Files, not JSON: the routes declare what they take, their replies are the built app's bytes.
export async function dashboardRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('', async (_request, reply) => reply.redirect('/dashboard/'));

  app.get('/', { prefixTrailingSlash: 'slash' }, async (_request, reply) => {
    const html = await readFile(join(await builtDir(), 'index.html'));
    return secured(reply).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
  });

  // The test device worker (dashboard/public/, docs/dashboard.md#test-sends): at the dashboard's root, so its scopes
  // (/dashboard/test-device/<site>/) are under it; not cached, so a new one replaces the old at the next visit.
  app.get('/test-device-sw.js', async (_request, reply) => {
    const body = await readFile(join(await builtDir(), 'test-device-sw.js'));
    return secured(reply).type(CONTENT_TYPES['.js']!).header('cache-control', 'no-cache').send(body);
  });

  // The guides a failure's "how to fix it" links to (help-pages.ts), rendered when the dashboard was built.
  app.get('/help/delivery-failures', async (_request, reply) => {
    const html = await readFile(join(await builtDir(), 'help', 'delivery-failures.html'));
    return secured(reply).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
  });

  app.get('/assets/:file', { schema: { params: assetParams } }, async (request, reply) => {
    const { file } = request.params;
    const type = CONTENT_TYPES[extname(file)];
    if (!type || file.startsWith('.')) throw new ServerError('E_DASHBOARD_FILE_UNKNOWN', { file });
    let body: Buffer;
    try {
      body = await readFile(join(await builtDir(), 'assets', file));
    } catch (error) {
      if (error instanceof ServerError) throw error;
      throw new ServerError('E_DASHBOARD_FILE_UNKNOWN', { file });
    }
    // asset names carry a hash of their content
    return secured(reply).type(type).header('cache-control', 'public, max-age=31536000, immutable').send(body);
  });
}
