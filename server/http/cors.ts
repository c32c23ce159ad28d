// CORS for the public calls: a page of the site's origin (or of its child window) may read the replies, no other.
// What @fastify/cors did with a per-request delegator, written for this one case: that plugin built two option
// objects, a promise and a closure per request (8% of a sync's CPU under load, bench/README.md, sync endpoint);
// here the decision is one function call and the headers are set in place.
// - every reply varies by Origin (the decision reads it);
// - an allowed origin is echoed in Access-Control-Allow-Origin, any other gets no CORS header at all;
// - a preflight (OPTIONS) from an allowed origin is answered 204 here, before any other hook (the rate limit, the
//   owner API's key check): methods GET and POST, the headers it asks for, cached 600 s; one without
//   Access-Control-Request-Method is a 400; one from any other origin reaches no route (404).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { corsOrigin, type SiteRegistry } from './site-access.ts';

const PREFLIGHT_METHODS = 'GET, POST';
const PREFLIGHT_MAX_AGE = '600';

/** Adds `field` to the reply's Vary header, unless it is there already (or Vary is `*`). */
function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined || current === '') {
    reply.header('vary', field);
    return;
  }
  const value = Array.isArray(current) ? current.join(', ') : String(current);
  const fields = value
    .toLowerCase()
    .split(',')
    .map((name) => name.trim());
  if (fields.includes('*') || fields.includes(field.toLowerCase())) return;
  reply.header('vary', `${value}, ${field}`);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** A preflight the CORS hook let through (cors.ts); any other OPTIONS request reaches no route. */
    corsPreflight: boolean;
  }
}

/**
 * The CORS hook, at preValidation (a form POST's site hash is parsed by then): registered before every other
 * hook of that stage, so a request the route's checks refuse still carries the headers and the page can read why.
 */
export function registerCors(app: FastifyInstance, registry: SiteRegistry): void {
  const originFor = corsOrigin(registry);
  app.decorateRequest('corsPreflight', false);
  app.addHook('preValidation', (request, reply, done) => {
    addVary(reply, 'Origin');
    const origin = originFor(request);
    if (origin === false) return done();
    reply.header('access-control-allow-origin', origin);
    if (request.raw.method !== 'OPTIONS') return done();
    if (!request.headers['access-control-request-method']) {
      reply.code(400).type('text/plain').send('Invalid Preflight Request');
      return;
    }
    request.corsPreflight = true;
    reply.header('access-control-allow-methods', PREFLIGHT_METHODS);
    addVary(reply, 'Access-Control-Request-Headers');
    const asked = request.headers['access-control-request-headers'];
    if (asked !== undefined) reply.header('access-control-allow-headers', asked);
    reply.header('access-control-max-age', PREFLIGHT_MAX_AGE);
    reply.code(204).header('content-length', '0').send();
  });
  // Lets fastify route a preflight to the hook above; one the hook did not answer is an unknown route.
  app.options('*', (request, reply) => {
    if (!request.corsPreflight) return reply.callNotFound();
    return reply.send();
  });
}
