// The owner API's automation routes: what they take and what they answer (route-schemas.ts). The body of a
// change is contract/automation-input.ts's schema, which the dashboard checks with too.
import { z } from 'zod';
import { SITE_PARAMS } from '../http/params.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import { currencyAmount, failureGroup } from '../http/reply-schemas.ts';
import { AUTOMATION_KINDS, type Automation, type AutomationSettings, type AutomationStats } from '../../contract/automations.ts';

export const automationParams = SITE_PARAMS.extend({
  kind: z.enum(AUTOMATION_KINDS, { error: `must be one of ${AUTOMATION_KINDS.join(', ')}` }),
});

const settingNames = [
  'enabled',
  'delayMinutes',
  'title',
  'body',
  'texts',
  'url',
  'conversionWindowHours',
  'days',
  'audience',
] as const satisfies readonly (keyof AutomationSettings)[];

const automation = z.object(
  fieldsOf<Automation>()({
    kind: z.enum(AUTOMATION_KINDS),
    enabled: z.boolean(),
    delayMinutes: z.int(),
    title: z.string(),
    body: z.string(),
    texts: z.record(z.string(), z.object({ title: z.string(), body: z.string() })),
    url: z.string().nullable(),
    conversionWindowHours: z.int(),
    days: z.int(),
    audience: z.string().nullable().optional(),
    changed: z.array(z.enum(settingNames)),
    stats: z.object(
      fieldsOf<AutomationStats>()({
        scheduled: z.int(),
        sent: z.int(),
        delivered: z.int(),
        failed: z.int(),
        failures: z.array(failureGroup),
        clicked: z.int(),
        conversions: z.int(),
        revenue: z.array(currencyAmount),
      }),
    ),
  }),
);

export const AUTOMATIONS_REPLY = successReply({ automations: z.array(automation) });
export const AUTOMATION_REPLY = successReply({ automation });
