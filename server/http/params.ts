// Parameter checking for every call: a zod schema per call, and the first problem turned into a 400 that
// names the parameter. Nothing is stored before the parameters pass.
import { ServerError } from '../errors.ts';
import { z } from 'zod';

import { text } from '../../contract/text-fields.ts';
import { PAGE_MAX } from '../../contract/owner-api.ts';

export { segmentIdParam, siteHash, subscriberIdParam, subscriberSecretParam, text } from '../../contract/text-fields.ts';

/**
 * `source` names the whole input (`body`, `query`) when it is not an object at all. A key the schema does not
 * know (strict schemas) is named itself: `order.extra: is not a parameter of this call`.
 */
export function parseParams<T extends z.ZodType>(schema: T, input: unknown, source = 'request'): z.output<T> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    throw new ServerError('E_PARAM_UNKNOWN', { param: [...path, issue.keys[0]!].join('.') });
  }
  const name = path.join('.') || source;
  const given = issue.path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key], input);
  const missing =
    (given === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')) ||
    issue.message === 'is required';
  throw missing
    ? new ServerError('E_PARAM_MISSING', { param: name })
    : new ServerError('E_PARAM_INVALID', { param: name, problem: issue.message });
}

export const BROWSER_PATTERN = /^[A-Za-z0-9 ._-]*$/;
export const browserParam = text(32, BROWSER_PATTERN, 'must be letters, digits, " ", ".", "_" or "-"');
export const httpUrlParam = (max: number) =>
  text(max).refine((value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');
export const integerText = (min: number, max: number) =>
  text(12, /^-?\d+$/, 'must be an integer')
    .transform(Number)
    .refine((value) => value >= min && value <= max, `must be between ${min} and ${max}`);
/** A query parameter that counts something from 1 to `max` (`?days=7`), `fallback` when it is absent. */
export const countQuery = (max: number, fallback: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(1, `must be 1 to ${max}`)
    .max(max, `must be 1 to ${max}`)
    .default(fallback);
/** The owner's reporting window in days (stats, subscriber health). */
export const daysQuery = countQuery(366, 30);
const ZONE_RULE = 'must be an IANA time zone such as Europe/Berlin';
const knownZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};
/** The time zone whose days the figures are counted in (the owner's display zone); UTC when left out. */
export const zoneQuery = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/, ZONE_RULE)
  .refine(knownZone, ZONE_RULE)
  .default('UTC');
export const flagText = z
  .enum(['0', '1', 'true', 'false'], { error: 'must be 0, 1, true or false' })
  .transform((value) => value === '1' || value === 'true');
export const optionalText = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const emptyMeansAbsent = new WeakSet<z.ZodType>();
/**
 * optionalText for a field of a `withoutEmptyFields` form: the same rule, applied by the form in one pass over the body
 * instead of a preprocessing step per field (the sync form has 25 fields, and every sync parses all of them).
 */
export const optionalField = <T extends z.ZodType>(schema: T) => {
  const field = schema.optional();
  emptyMeansAbsent.add(field);
  return field;
};
/** Whether `field` is an `optionalField` (an empty value counts as absent). */
export const isOptionalField = (field: z.ZodType): boolean => emptyMeansAbsent.has(field);
/**
 * `schema` (the form `shape` and its cross-field checks) after the `optionalField`s of `shape` that are empty are
 * dropped: an empty value counts as absent, as optionalText says field by field.
 */
export function withoutEmptyFields<T extends z.ZodType>(shape: Record<string, z.ZodType>, schema: T) {
  const optional = new Set(Object.keys(shape).filter((key) => emptyMeansAbsent.has(shape[key]!)));
  return z.preprocess((value) => {
    if (!value || typeof value !== 'object') return value;
    let copy: Record<string, unknown> | undefined;
    for (const [key, field] of Object.entries(value)) {
      if (field !== '' || !optional.has(key)) continue;
      copy ??= { ...value };
      delete copy[key];
    }
    return copy ?? value;
  }, schema);
}
/** A page of an owner API list (`?limit=&offset=`). */
export const pageQuery = z.object({
  limit: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1).max(PAGE_MAX).default(100),
  offset: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(0).default(0),
});
/** The path of the owner API's site routes, `/api/v1/sites/:name/...` (ownerSiteHook has checked the name). */
export const SITE_PARAMS = z.object({ name: z.string() });
