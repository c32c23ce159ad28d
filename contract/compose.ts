// The compose screen's wires (docs/dashboard.md#drafts-templates-and-test-sends): drafts and templates kept by the
// provider (`/api/v1/sites/:name/drafts`), the owner's own browser as a test device (`.../test-devices`) and a test
// send to it (`.../test-sends`). zod is browser-safe; runtime/ and worker/ never import this.
import { z } from 'zod';
import { campaignInputSchema } from './campaign-input.ts';
import { text } from './text-fields.ts';

export const DRAFT_KINDS = ['draft', 'template'] as const;
/** A draft: a message being written, deleted once sent. A template: a message kept to start others from. */
export type DraftKind = (typeof DRAFT_KINDS)[number];
/** The most drafts and templates one site keeps, together. */
export const DRAFTS_MAX = 200;
export const DRAFT_NAME_MAX_LENGTH = 100;
/** The most bytes of one draft's content, as JSON (a full A/B test in four languages is ~12 kB). */
export const DRAFT_CONTENT_MAX_BYTES = 32_768;
/** The most test devices one member keeps on one site (a browser each). */
export const TEST_DEVICES_MAX = 10;
const PUSH_KEY_MAX_LENGTH = 200;
const ENDPOINT_MAX_LENGTH = 2048;

/**
 * What the compose form holds, as the dashboard typed it (dashboard/src/compose/draft.ts): kept as it is, read back
 * field by field, so a draft saved by an older dashboard still opens.
 */
const draftContent = z
  .record(z.string(), z.unknown(), { error: 'must be an object of the compose form' })
  .refine((content) => new TextEncoder().encode(JSON.stringify(content)).length <= DRAFT_CONTENT_MAX_BYTES, {
    message: `must be at most ${DRAFT_CONTENT_MAX_BYTES} bytes as JSON`,
  });

export const draftInputSchema = z.strictObject({
  kind: z.enum(DRAFT_KINDS, { error: `must be one of ${DRAFT_KINDS.join(', ')}` }).default('draft'),
  /** What the lists show: a template's name; a draft's title as typed ("" until there is one). */
  name: text(DRAFT_NAME_MAX_LENGTH),
  content: draftContent,
});
export const draftUpdateSchema = z.strictObject({ name: text(DRAFT_NAME_MAX_LENGTH), content: draftContent });

/** POST .../drafts. */
export type DraftRequest = z.input<typeof draftInputSchema>;
export type DraftInput = z.output<typeof draftInputSchema>;
/** PUT .../drafts/:id. */
export type DraftUpdate = z.output<typeof draftUpdateSchema>;

/** A draft or template as the owner API answers it. */
export interface MessageDraft {
  draftId: string;
  kind: DraftKind;
  name: string;
  content: Record<string, unknown>;
  /** Who saved it last (a member's name). */
  savedBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface DraftsReply {
  status: 'success';
  drafts: MessageDraft[];
}
export interface DraftReply {
  status: 'success';
  draft: MessageDraft;
}

/** PUT .../test-devices: this browser's push subscription, made on the dashboard's origin with the site's key. */
export const testDeviceInputSchema = z.strictObject({
  endpoint: z.url({ protocol: /^https$/, error: 'must be an https push endpoint' }).max(ENDPOINT_MAX_LENGTH),
  keys: z.strictObject({
    p256dh: text(PUSH_KEY_MAX_LENGTH, /^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url'),
    auth: text(PUSH_KEY_MAX_LENGTH, /^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url'),
  }),
  /** How the list names it ("Chrome on Linux"). */
  label: text(DRAFT_NAME_MAX_LENGTH).default('this browser'),
});
export type TestDeviceRequest = z.input<typeof testDeviceInputSchema>;
export type TestDeviceInput = z.output<typeof testDeviceInputSchema>;

/** A member's browser registered for test sends: never a subscriber, never in a figure. */
export interface TestDevice {
  deviceId: string;
  label: string;
  /** The push service's origin (the endpoint itself is a secret of the browser). */
  pushService: string;
  createdAt: string;
}

export interface TestDevicesReply {
  status: 'success';
  /** The site's current VAPID public key: the applicationServerKey a test device subscribes with. */
  vapidPublicKey: string;
  devices: TestDevice[];
}
export interface TestDeviceReply {
  status: 'success';
  device: TestDevice;
}

/**
 * POST .../test-sends: the composed message (as a campaign would be created) to one of the caller's test devices,
 * as variant `variant` (0 = A) in language `language` (a key of its texts; absent: the default texts).
 */
export const testSendInputSchema = z.strictObject({
  deviceId: z.string('must be a test device id').regex(/^\d{1,18}$/, 'must be a test device id (digits)'),
  message: campaignInputSchema,
  variant: z.int('must be a variant number').min(0, 'must be 0 (A) to 3 (D)').max(3, 'must be 0 (A) to 3 (D)').optional(),
  language: text(35).optional(),
});
export type TestSendRequest = z.input<typeof testSendInputSchema>;
export type TestSendInput = z.output<typeof testSendInputSchema>;

export interface TestSendReply {
  status: 'success';
  deviceId: string;
  /** The push service took it (2xx). */
  delivered: boolean;
  /** Why it did not, as the push service said. */
  reason: string | null;
  /** The title sent (the variant's, in the language chosen). */
  title: string;
}
