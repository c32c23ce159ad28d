// GET /api/v1/sites/:name/stats: what it takes and answers (route-schemas.ts).
import { z } from 'zod';
import { daysQuery, zoneQuery } from '../http/params.ts';
import { byStatus } from '../http/reply-schemas.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import type { DayCount, NotificationDay, SiteStats, ValueCount } from '../../contract/owner-api.ts';

export const statsQuery = z.object({ days: daysQuery, zone: zoneQuery });

const valueCount = z.object(fieldsOf<ValueCount>()({ value: z.string(), count: z.int() }));

export const STATS_REPLY = successReply(
  fieldsOf<SiteStats>()({
    total: z.int(),
    byStatus,
    days: z.array(z.object(fieldsOf<DayCount>()({ date: z.string(), new: z.int(), total: z.int() }))),
    browsers: z.array(valueCount),
    languages: z.array(valueCount),
    blocks: z.int(),
    notifications: z.array(
      z.object(
        fieldsOf<NotificationDay>()({ date: z.string(), delivered: z.int(), shown: z.int(), clicked: z.int(), conversions: z.int() }),
      ),
    ),
  }),
);
