// Every route declares its params, querystring, body and response as zod schemas (`schema: {...}` in its
// options). fastify checks the request parts with them before the handler runs, through parseParams, so a
// refusal is the catalogue's 400 naming the parameter as before; a reply is written through its status's schema,
// so a field no schema lists never leaves the server (a site summary cannot carry the site's key by accident)
// and a reply that breaks its contract is a 500, not a silent change of the wire.
import type { FastifySchemaCompiler, FastifySerializerCompiler, FastifyTypeProvider } from 'fastify';
import { z } from 'zod';
import { parseParams } from './params.ts';

/** Types a route's `request.params/query/body` from its zod schemas (the parsed values the handler gets). */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown;
}

const SOURCE_OF: Record<string, string> = { body: 'body', querystring: 'query' };

const fastPaths = new WeakMap<z.ZodType, (data: unknown) => unknown>();

/**
 * `schema` with a fast path in front of it: `fast` gives the value `schema` would give, or undefined when it is not
 * sure, and then `schema` decides (its value, or the error naming the parameter). For a form every request of a hot
 * route parses (the sync's), where zod's generic parse was the largest single part of a request's own CPU.
 */
export function withFastPath<T extends z.ZodType>(schema: T, fast: (data: unknown) => z.output<T> | undefined): T {
  fastPaths.set(schema, fast);
  return schema;
}

export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const fast = fastPaths.get(schema);
  return (data) => {
    if (fast) {
      const value = fast(data);
      if (value !== undefined) return { value };
    }
    try {
      return { value: parseParams(schema, data, SOURCE_OF[httpPart ?? ''] ?? 'request') };
    } catch (error) {
      return { error: error as Error };
    }
  };
};

export const serializerCompiler: FastifySerializerCompiler<z.ZodType> =
  ({ schema }) =>
  (data) =>
    JSON.stringify(schema.parse(data));

/** `{status: "success", ...fields}`, the shape of every successful reply. */
export const successReply = <S extends z.ZodRawShape>(fields: S) => z.object({ status: z.literal('success'), ...fields });

/**
 * A zod shape with exactly the fields of the contract type T: a field added to (or renamed in) contract/
 * without its schema here fails the typecheck, so no reply drops it silently.
 */
export const fieldsOf =
  <T>() =>
  <S extends { [K in keyof T]-?: z.ZodType<T[K]> }>(shape: S & Record<Exclude<keyof S, keyof T>, never>): S =>
    shape;
