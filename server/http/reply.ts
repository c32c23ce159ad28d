// Replies of the public calls: JSON, or JSONP when the request names a callback. A callback name is only
// ever an identifier path, so nothing the caller sends can become script.
import type { FastifyReply, FastifyRequest } from 'fastify';

export const CALLBACK_PATTERN = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
const CALLBACK_MAX_LENGTH = 128;

/** A request the caller got wrong: answered with `status` and `{status: "failure", message}`. */
export class RequestError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

function callbackOf(request: FastifyRequest): string | undefined {
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.callback;
  const fromBody = (request.body as Record<string, unknown> | undefined)?.callback;
  const callback = fromQuery ?? fromBody;
  if (callback === undefined) return undefined;
  if (typeof callback !== 'string' || callback.length > CALLBACK_MAX_LENGTH || !CALLBACK_PATTERN.test(callback)) {
    throw new RequestError(400, 'callback: must be a JavaScript identifier or dotted identifier path');
  }
  return callback;
}

/** Throws a 400 RequestError when the callback name is malformed; call before doing any work. */
export function checkCallback(request: FastifyRequest): void {
  callbackOf(request);
}

export function sendReply(request: FastifyRequest, reply: FastifyReply, payload: unknown, statusCode = 200): FastifyReply {
  let callback: string | undefined;
  try {
    callback = callbackOf(request);
  } catch {
    callback = undefined;
  }
  reply.code(statusCode);
  if (!callback) return reply.type('application/json; charset=utf-8').send(JSON.stringify(payload));
  // U+2028/2029 are valid in JSON but ended string literals in older JavaScript engines.
  const json = JSON.stringify(payload)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return reply.type('application/javascript; charset=utf-8').header('x-content-type-options', 'nosniff').send(`/**/ ${callback}(${json});`);
}

export function failure(message: string): { status: 'failure'; message: string } {
  return { status: 'failure', message };
}
