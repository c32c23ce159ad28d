// The owner API's compose routes: what they take and what they answer (route-schemas.ts).
import { z } from 'zod';
import { SITE_PARAMS } from '../http/params.ts';
import { isoTime } from '../http/reply-schemas.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import { DRAFT_KINDS, type MessageDraft, type TestDevice } from '../../contract/compose.ts';

export { draftInputSchema as draftBody, draftUpdateSchema as draftUpdateBody } from '../../contract/compose.ts';
export { testDeviceInputSchema as testDeviceBody, testSendInputSchema as testSendBody } from '../../contract/compose.ts';

const id = (what: string) => z.string().regex(/^\d{1,18}$/, `must be a ${what} id (digits)`);
export const draftParams = SITE_PARAMS.extend({ id: id('draft') });
export const testDeviceParams = SITE_PARAMS.extend({ id: id('test device') });
export const draftsQuery = z.object({ kind: z.enum(DRAFT_KINDS, { error: `must be one of ${DRAFT_KINDS.join(', ')}` }).optional() });

const draft = z.object(
  fieldsOf<MessageDraft>()({
    draftId: z.string(),
    kind: z.enum(DRAFT_KINDS),
    name: z.string(),
    content: z.record(z.string(), z.unknown()),
    savedBy: z.string(),
    createdAt: isoTime,
    updatedAt: isoTime,
  }),
);
const device = z.object(fieldsOf<TestDevice>()({ deviceId: z.string(), label: z.string(), pushService: z.string(), createdAt: isoTime }));

export const DRAFTS_REPLY = successReply({ drafts: z.array(draft) });
export const DRAFT_REPLY = successReply({ draft });
export const DRAFT_DELETED_REPLY = successReply({ draftId: z.string(), deleted: z.literal(true) });
export const TEST_DEVICES_REPLY = successReply({ vapidPublicKey: z.string(), devices: z.array(device) });
export const TEST_DEVICE_REPLY = successReply({ device });
export const TEST_DEVICE_REMOVED_REPLY = successReply({ deviceId: z.string(), removed: z.literal(true) });
export const TEST_SEND_REPLY = successReply({
  deviceId: z.string(),
  delivered: z.boolean(),
  reason: z.string().nullable(),
  title: z.string(),
});
