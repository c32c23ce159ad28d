// Replies of the public calls: JSON, or JSONP when the request names a callback. A callback name is only
// ever an identifier path, so nothing the caller sends can become script.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServerError, serverErrorMessage, type ErrorDetails, type ServerErrorCode } from '../errors.ts';

export const CALLBACK_PATTERN = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
const CALLBACK_MAX_LENGTH = 128;

function callbackOf(request: FastifyRequest): string | undefined {
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.callback;
  const fromBody = (request.body as Record<string, unknown> | undefined)?.callback;
  const callback = fromQuery ?? fromBody;
  if (callback === undefined) return undefined;
  if (typeof callback !== 'string' || callback.length > CALLBACK_MAX_LENGTH || !CALLBACK_PATTERN.test(callback)) {
    throw new ServerError('E_CALLBACK_INVALID');
  }
  return callback;
}

/**
 * A JSONP route's preValidation hook: a malformed callback name is a 400 E_CALLBACK_INVALID before its schemas look
 * at the other parameters. A callback hook, not an async one: no promise on every request of the sync route.
 */
export function checkCallbackHook(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  try {
    callbackOf(request);
  } catch (error) {
    return done(error as Error);
  }
  done();
}

export function sendReply(request: FastifyRequest, reply: FastifyReply, payload: unknown, statusCode = 200): FastifyReply {
  let callback: string | undefined;
  try {
    callback = callbackOf(request);
  } catch {
    callback = undefined;
  }
  reply.code(statusCode);
  // through the route's response schema for this status, when it has one (route-schemas.ts)
  const serialized = reply.serialize(payload) as string;
  if (!callback) return reply.type('application/json; charset=utf-8').send(serialized);
  // U+2028/2029 are valid in JSON but ended string literals in older JavaScript engines.
  const json = serialized.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return reply.type('application/javascript; charset=utf-8').send(`/**/ ${callback}(${json});`);
}

export interface Failure {
  status: 'failure';
  message: string;
  code: ServerErrorCode;
}

export function failureOf(error: ServerError): Failure {
  return { status: 'failure', message: error.message, code: error.code };
}

export function failure<C extends ServerErrorCode>(code: C, ...details: ErrorDetails<C>): Failure {
  return { status: 'failure', message: serverErrorMessage(code, ...details), code };
}
