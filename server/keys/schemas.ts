// The owner API of a site's VAPID key ring: what it takes and answers (route-schemas.ts).
import { z } from 'zod';
import { SITE_PARAMS } from '../http/params.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import type { VapidKeyRing, VapidKeyRotation, VapidRingKey } from '../../contract/vapid-keys.ts';

export const vapidKeyParams = SITE_PARAMS.extend({
  key: z.string().regex(/^[0-9a-f]{12}$/, 'must be a key id of 12 hex digits (push-kit keys vapid lists them)'),
});

const ringKey = z.object(
  fieldsOf<VapidRingKey>()({
    id: z.string(),
    publicKey: z.string(),
    current: z.boolean(),
    subscribers: z.int(),
    canSign: z.boolean(),
    problem: z.string().nullable(),
  }),
);

const ringFields = fieldsOf<VapidKeyRing>()({
  keys: z.array(ringKey),
  onLegacyKey: z.int(),
  missing: z.array(z.object({ id: z.string(), subscribers: z.int() })),
});

export const VAPID_KEY_RING_REPLY = successReply(ringFields);

export const VAPID_KEY_ROTATION_REPLY = successReply({
  ...fieldsOf<VapidKeyRotation>()({ previous: z.string(), current: z.string(), publicKey: z.string(), configFile: z.string() }),
  ring: z.object(ringFields),
});

export const VAPID_KEY_RETIRED_REPLY = successReply({ retired: z.string(), ring: z.object(ringFields) });
