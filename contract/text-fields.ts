// zod schemas of single text values on the wires: the provider's parameter checks (server/http/params.ts)
// and the campaign input (campaign-input.ts) share them. Never imported by runtime/ or worker/.
import { z } from 'zod';
import {
  INVALID_SUBSCRIBER_ID,
  PLACEHOLDER_SUBSCRIBER_ID,
  SEGMENT_ID_MAX_LENGTH,
  SEGMENT_ID_PATTERN,
  SEGMENT_ID_RULE,
  SITE_HASH_MAX_LENGTH,
  SITE_HASH_PATTERN,
  SITE_HASH_RULE,
  SUBSCRIBER_ID_MAX_LENGTH,
  SUBSCRIBER_ID_PATTERN,
  SUBSCRIBER_ID_RULE,
  SUBSCRIBER_SECRET_PATTERN,
  SUBSCRIBER_SECRET_RULE,
} from './ids.ts';

/** A lone UTF-16 surrogate: not text, and refused by PostgreSQL inside jsonb. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Any surrogate, paired or not: text without one (nearly all) needs no look for a lone one. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * A single query or form value; a repeated parameter (an array) is refused. No NUL, no lone surrogate: one check
 * for both (every form field of every sync runs it), each refused with its own issue as two refinements would.
 */
export function text(max: number, pattern?: RegExp, rule?: string) {
  let schema = z
    .string({ error: 'must be a single text value' })
    .max(max, `must be at most ${max} characters`)
    .check((payload) => {
      const value = payload.value;
      if (value.includes('\u0000'))
        payload.issues.push({ code: 'custom', message: 'must not contain NUL characters', input: value, path: [], continue: true });
      if (SURROGATE.test(value) && LONE_SURROGATE.test(value))
        payload.issues.push({
          code: 'custom',
          message: 'must be well-formed Unicode text (no lone surrogates)',
          input: value,
          path: [],
          continue: true,
        });
    });
  if (pattern) schema = schema.regex(pattern, rule ?? `must match ${pattern}`);
  return schema;
}

export const siteHash = text(SITE_HASH_MAX_LENGTH, SITE_HASH_PATTERN, SITE_HASH_RULE);
export const subscriberIdParam = text(SUBSCRIBER_ID_MAX_LENGTH, SUBSCRIBER_ID_PATTERN, SUBSCRIBER_ID_RULE).refine(
  (value) => !PLACEHOLDER_SUBSCRIBER_ID.test(value),
  `${INVALID_SUBSCRIBER_ID} (a placeholder for no id)`,
);
export const subscriberSecretParam = text(43, SUBSCRIBER_SECRET_PATTERN, SUBSCRIBER_SECRET_RULE);
export const segmentIdParam = text(SEGMENT_ID_MAX_LENGTH, SEGMENT_ID_PATTERN, SEGMENT_ID_RULE);
