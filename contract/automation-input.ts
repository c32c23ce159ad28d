// The one input schema of an automation change: PATCH /api/v1/sites/:name/automations/:kind (the owner API
// checks it; the dashboard sends it). zod is browser-safe, but runtime/ and worker/ never import this.
import { z } from 'zod';
import { CAMPAIGN_BODY_MAX_LENGTH, CAMPAIGN_TITLE_MAX_LENGTH, CAMPAIGN_URL_MAX_LENGTH } from './campaign-limits.ts';
import { text } from './text-fields.ts';
import { AUDIENCE_ID_PATTERN, AUDIENCE_ID_RULE } from './audiences.ts';
import { languageTextsSchema } from './campaign-input.ts';
import { AUTOMATION_DAYS_MAX, AUTOMATION_DELAY_MAX_MINUTES, CONVERSION_WINDOW_MAX_HOURS } from './automations.ts';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(CAMPAIGN_URL_MAX_LENGTH);

/** A change of one automation: every field optional, at least one given; `url: null` clears it. */
export const automationChangeSchema = z
  .strictObject({
    enabled: z.boolean({ error: 'must be true or false' }),
    delayMinutes: z
      .int({ error: 'must be a whole number of minutes' })
      .min(0, `must be 0 to ${AUTOMATION_DELAY_MAX_MINUTES} minutes`)
      .max(AUTOMATION_DELAY_MAX_MINUTES, `must be 0 to ${AUTOMATION_DELAY_MAX_MINUTES} minutes`),
    title: text(CAMPAIGN_TITLE_MAX_LENGTH).trim().min(1, 'must not be empty'),
    body: text(CAMPAIGN_BODY_MAX_LENGTH).trim().min(1, 'must not be empty'),
    /** Texts per language tag (`{}` clears them); placeholders work in them as in title and body. */
    texts: languageTextsSchema,
    url: httpUrl.nullable(),
    conversionWindowHours: z
      .int({ error: 'must be a whole number of hours' })
      .min(1, `must be 1 to ${CONVERSION_WINDOW_MAX_HOURS} hours`)
      .max(CONVERSION_WINDOW_MAX_HOURS, `must be 1 to ${CONVERSION_WINDOW_MAX_HOURS} hours`),
    /** priceDrop, backInStock: views or carts this many days back count; winBack: days without a visit or click. */
    days: z
      .int({ error: 'must be a whole number of days' })
      .min(1, `must be 1 to ${AUTOMATION_DAYS_MAX} days`)
      .max(AUTOMATION_DAYS_MAX, `must be 1 to ${AUTOMATION_DAYS_MAX} days`),
    /** Only to the subscribers of this audience (docs/audiences.md); null: to everyone it concerns. */
    audience: text(40, AUDIENCE_ID_PATTERN, AUDIENCE_ID_RULE).nullable(),
  })
  .partial()
  .refine((change) => Object.keys(change).length > 0, { message: 'give at least one field to change' });

/** A checked change: the fields given, `url: null` to clear it. */
export type AutomationChange = z.output<typeof automationChangeSchema>;
