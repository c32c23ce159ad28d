// The owner API (same origin, /api/v1/) with the signed-in site's key in the Authorization header. Its
// requests and replies are those of contract/owner-api.ts.
import type {
  AudienceQuery,
  AudienceReply,
  CampaignCancelledReply,
  CampaignCreatedReply,
  CampaignReply,
  CampaignRequest,
  CampaignsReply,
  DeletedReply,
  MemberAddedReply,
  MemberRemovedReply,
  SegmentCreatedReply,
  SegmentRequest,
  SegmentsReply,
  SitesReply,
  StatsReply,
  SubscriberExportFile,
  SubscriberListQuery,
  SubscriberPageReply,
  SubscriberReply,
  SubscriberStatus,
  SuccessReply,
} from '../../contract/owner-api.ts';
import type { ConditionCheckReply } from '../../contract/conditions.ts';
import type { CampaignFigures, CampaignListQuery, CampaignPage, CampaignResent } from '../../contract/campaign-report.ts';
import type { AudienceCheckReply, AudienceCreatedReply, AudienceRequest, AudiencesReply } from '../../contract/audiences.ts';
import { displayZone, formatInstant } from './clock/index.ts';
import type { VapidKeyRing } from '../../contract/vapid-keys.ts';
import type { ImportQuery, ImportReply, ImportReport, ImportVapidKeyReply, ImportVapidKeyRequest } from '../../contract/imports.ts';
import type {
  AutomationChange,
  AutomationKind,
  AutomationReply,
  AutomationsReply,
  SubscriberHealthReply,
} from '../../contract/automations.ts';
import type {
  WebhookEndpointCreatedReply,
  WebhookEndpointReply,
  WebhookEndpointRequest,
  WebhookEndpointsReply,
  WebhookEndpointUpdate,
  WebhookLogReply,
  WebhookReplayedReply,
  WebhookSecretRotatedReply,
} from '../../contract/webhook-events.ts';
import type { FeedRemovedReply, FeedReply, FeedRequest, FeedsReply } from '../../contract/feeds.ts';
import type {
  DraftKind,
  DraftReply,
  DraftRequest,
  DraftsReply,
  TestDeviceReply,
  TestDeviceRequest,
  TestDevicesReply,
  TestSendReply,
  TestSendRequest,
} from '../../contract/compose.ts';
import type {
  AuditReply,
  MemberCreatedReply,
  MemberKeyReply,
  MemberReply,
  MemberRequest,
  MembersReply,
  Role,
  SignedInReply,
  SignInReply,
} from '../../contract/members.ts';

export const STATUS_LABELS: Record<SubscriberStatus, string> = {
  subscribed: 'Active',
  unsubscribed: 'Unsubscribed',
  blocked: 'Blocked',
  expired: 'Expired',
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function request<T>(key: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/api/v1/${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${key}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'The provider server cannot be reached.');
  }
  const text = await response.text();
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = undefined;
  }
  if (!response.ok) {
    const message = (payload as { message?: unknown } | undefined)?.message;
    throw new ApiError(response.status, typeof message === 'string' ? message : `HTTP ${response.status}`);
  }
  return payload as T;
}

const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

/**
 * A file sent as the body of POST .../imports (streamed on the provider): XMLHttpRequest, since fetch reports no
 * upload progress. `onSent(bytes)` follows the upload; the reply (the report) comes once the last row is stored.
 */
function upload(key: string, path: string, file: Blob, onSent: (bytes: number) => void): Promise<ImportReport> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v1/${path}`);
    xhr.setRequestHeader('authorization', `Bearer ${key}`);
    xhr.setRequestHeader('content-type', /\.(nd)?jsonl?$/i.test((file as File).name ?? '') ? 'application/x-ndjson' : 'text/csv');
    xhr.upload.onprogress = (event) => onSent(event.loaded);
    xhr.onerror = () => reject(new ApiError(0, 'The provider server cannot be reached.'));
    xhr.onload = () => {
      let payload: unknown;
      try {
        payload = JSON.parse(xhr.responseText);
      } catch {
        payload = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve((payload as ImportReply).report);
      const message = (payload as { message?: unknown } | undefined)?.message;
      reject(new ApiError(xhr.status, typeof message === 'string' ? message : `HTTP ${xhr.status}`));
    };
    xhr.send(file);
  });
}

/** A file the provider writes (a CSV export), as a Blob: fetched with the key, so no link could carry it. */
async function download(key: string, path: string): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(`/api/v1/${path}`, { headers: { authorization: `Bearer ${key}` }, cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'The provider server cannot be reached.');
  }
  if (!response.ok) {
    const payload = (await response.json().catch(() => undefined)) as { message?: unknown } | undefined;
    throw new ApiError(response.status, typeof payload?.message === 'string' ? payload.message : `HTTP ${response.status}`);
  }
  return response.blob();
}

/** The sites a key opens; an ApiError 401 when it opens none. */
export function sitesFor(key: string) {
  return request<SitesReply>(key, 'sites').then((reply) => reply.sites);
}

/** Trades a sign-in link's token (`#sign-in=...`) for the member's own key, once. */
export async function signInWithLink(token: string): Promise<SignInReply> {
  let response: Response;
  try {
    response = await fetch('/api/v1/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'The provider server cannot be reached.');
  }
  const payload = (await response.json().catch(() => undefined)) as SignInReply | { message?: string } | undefined;
  if (!response.ok)
    throw new ApiError(response.status, (payload as { message?: string } | undefined)?.message ?? `HTTP ${response.status}`);
  return payload as SignInReply;
}

/** The calls of one site, with its key. */
export function siteApi(key: string, site: string) {
  const base = `sites/${encodeURIComponent(site)}`;
  const id = encodeURIComponent;
  return {
    stats: (days: number, zone: string) => request<StatsReply>(key, `${base}/stats${query({ days, zone })}`),
    subscribers: (params: SubscriberListQuery) => request<SubscriberPageReply>(key, `${base}/subscribers${query({ ...params })}`),
    subscriber: (subscriberId: string) => request<SubscriberReply>(key, `${base}/subscribers/${id(subscriberId)}`),
    exportSubscriber: (subscriberId: string) => request<SubscriberExportFile>(key, `${base}/subscribers/${id(subscriberId)}/export`),
    deleteSubscriber: (subscriberId: string) => request<DeletedReply>(key, `${base}/subscribers/${id(subscriberId)}`, { method: 'DELETE' }),
    segments: () => request<SegmentsReply>(key, `${base}/segments`).then((reply) => reply.segments),
    createSegment: (body: SegmentRequest) => request<SegmentCreatedReply>(key, `${base}/segments`, { method: 'POST', body }),
    checkCondition: (condition: string) =>
      request<ConditionCheckReply>(key, `${base}/conditions/check`, { method: 'POST', body: { condition } }),
    deleteSegment: (sid: string) => request<DeletedReply>(key, `${base}/segments/${id(sid)}`, { method: 'DELETE' }),
    audiences: () => request<AudiencesReply>(key, `${base}/audiences`),
    createAudience: (body: AudienceRequest) =>
      request<AudienceCreatedReply>(key, `${base}/audiences`, { method: 'POST', body }).then((reply) => reply.audience),
    deleteAudience: (audienceId: string) => request<DeletedReply>(key, `${base}/audiences/${id(audienceId)}`, { method: 'DELETE' }),
    checkAudience: (condition: string) =>
      request<AudienceCheckReply>(key, `${base}/audiences/check`, { method: 'POST', body: { condition } }),
    addMember: (sid: string, subscriberId: string) =>
      request<MemberAddedReply>(key, `${base}/segments/${id(sid)}/members/${id(subscriberId)}`, { method: 'PUT' }),
    removeMember: (sid: string, subscriberId: string) =>
      request<MemberRemovedReply>(key, `${base}/segments/${id(sid)}/members/${id(subscriberId)}`, { method: 'DELETE' }),
    audience: (audience: AudienceQuery) =>
      request<AudienceReply>(key, `${base}/audience${query({ ...audience })}`).then((reply) => reply.recipients),
    campaigns: (limit: number) => request<CampaignsReply>(key, `${base}/campaigns${query({ limit })}`).then((reply) => reply.campaigns),
    campaign: (campaignId: string) => request<CampaignReply>(key, `${base}/campaigns/${id(campaignId)}`).then((reply) => reply.campaign),
    campaignPage: (params: CampaignListQuery) => request<SuccessReply<CampaignPage>>(key, `${base}/campaigns${query({ ...params })}`),
    campaignFigures: (campaignId: string) => request<SuccessReply<CampaignFigures>>(key, `${base}/campaigns/${id(campaignId)}/figures`),
    resendCampaign: (campaignId: string) =>
      request<SuccessReply<CampaignResent>>(key, `${base}/campaigns/${id(campaignId)}/resend`, { method: 'POST' }),
    campaignResultsCsv: (campaignId: string) => download(key, `${base}/campaigns/${id(campaignId)}/results.csv`),
    subscribersCsv: (params: Omit<SubscriberListQuery, 'limit' | 'offset'>) =>
      download(key, `${base}/subscribers.csv${query({ ...params })}`),
    createCampaign: (body: CampaignRequest) => request<CampaignCreatedReply>(key, `${base}/campaigns`, { method: 'POST', body }),
    automations: () => request<AutomationsReply>(key, `${base}/automations`).then((reply) => reply.automations),
    changeAutomation: (kind: AutomationKind, change: AutomationChange) =>
      request<AutomationReply>(key, `${base}/automations/${id(kind)}`, { method: 'PATCH', body: change }).then((reply) => reply.automation),
    subscriberHealth: (days: number, zone: string) =>
      request<SubscriberHealthReply>(key, `${base}/subscriber-health${query({ days, zone })}`),
    vapidKeys: () => request<SuccessReply<VapidKeyRing>>(key, `${base}/vapid-keys`),
    importFile: (file: Blob, params: ImportQuery, onSent: (bytes: number) => void) =>
      upload(key, `${base}/imports${query({ ...params })}`, file, onSent),
    addImportKey: (pair: ImportVapidKeyRequest) =>
      request<ImportVapidKeyReply>(key, `${base}/imports/vapid-key`, { method: 'POST', body: pair }),
    cancelCampaign: (campaignId: string) =>
      request<CampaignCancelledReply>(key, `${base}/campaigns/${id(campaignId)}/cancel`, { method: 'POST' }),
    feeds: () => request<FeedsReply>(key, `${base}/feeds`).then((reply) => reply.feeds),
    addFeed: (body: FeedRequest) => request<FeedReply>(key, `${base}/feeds`, { method: 'POST', body }).then((reply) => reply.feed),
    removeFeed: (feedId: string) => request<FeedRemovedReply>(key, `${base}/feeds/${id(feedId)}`, { method: 'DELETE' }),
    webhooks: () => request<WebhookEndpointsReply>(key, `${base}/webhooks`).then((reply) => reply.endpoints),
    addWebhook: (body: WebhookEndpointRequest) => request<WebhookEndpointCreatedReply>(key, `${base}/webhooks`, { method: 'POST', body }),
    changeWebhook: (endpointId: string, change: WebhookEndpointUpdate) =>
      request<WebhookEndpointReply>(key, `${base}/webhooks/${id(endpointId)}`, { method: 'PATCH', body: change }).then(
        (reply) => reply.endpoint,
      ),
    removeWebhook: (endpointId: string) => request(key, `${base}/webhooks/${id(endpointId)}`, { method: 'DELETE' }),
    rotateWebhookSecret: (endpointId: string, overlapHours: number) =>
      request<WebhookSecretRotatedReply>(key, `${base}/webhooks/${id(endpointId)}/rotate-secret`, {
        method: 'POST',
        body: { overlapHours },
      }),
    webhookLog: (endpointId: string) => request<WebhookLogReply>(key, `${base}/webhooks/${id(endpointId)}/log${query({ limit: 50 })}`),
    me: () => request<SignedInReply>(key, `${base}/me`).then((reply) => reply.member),
    members: () => request<MembersReply>(key, `${base}/members`).then((reply) => reply.members),
    addTeamMember: (body: MemberRequest) => request<MemberCreatedReply>(key, `${base}/members`, { method: 'POST', body }),
    changeMemberRole: (memberId: string, role: Role) =>
      request<MemberReply>(key, `${base}/members/${id(memberId)}`, { method: 'PATCH', body: { role } }).then((reply) => reply.member),
    removeTeamMember: (memberId: string) => request(key, `${base}/members/${id(memberId)}`, { method: 'DELETE' }),
    newMemberKey: (memberId: string) => request<MemberKeyReply>(key, `${base}/members/${id(memberId)}/key`, { method: 'POST' }),
    audit: (limit: number, offset: number) => request<AuditReply>(key, `${base}/audit${query({ limit, offset })}`),
    drafts: (kind?: DraftKind) => request<DraftsReply>(key, `${base}/drafts${query({ kind })}`).then((reply) => reply.drafts),
    addDraft: (body: DraftRequest) => request<DraftReply>(key, `${base}/drafts`, { method: 'POST', body }).then((reply) => reply.draft),
    saveDraft: (draftId: string, body: Omit<DraftRequest, 'kind'>) =>
      request<DraftReply>(key, `${base}/drafts/${id(draftId)}`, { method: 'PUT', body }).then((reply) => reply.draft),
    deleteDraft: (draftId: string) => request(key, `${base}/drafts/${id(draftId)}`, { method: 'DELETE' }),
    testDevices: () => request<TestDevicesReply>(key, `${base}/test-devices`),
    addTestDevice: (body: TestDeviceRequest) =>
      request<TestDeviceReply>(key, `${base}/test-devices`, { method: 'PUT', body }).then((reply) => reply.device),
    testSend: (body: TestSendRequest) => request<TestSendReply>(key, `${base}/test-sends`, { method: 'POST', body }),
    replayWebhook: (endpointId: string, messageId: string) =>
      request<WebhookReplayedReply>(key, `${base}/webhooks/${id(endpointId)}/messages/${id(messageId)}/replay`, { method: 'POST' }),
  };
}

export type SiteApi = ReturnType<typeof siteApi>;

export const formatNumber = (value: number) => value.toLocaleString('en-US');

/** An instant as text on the owner's clock (clock/); in markup use <Time>, which adds UTC on hover. */
export function formatDate(value: string | null): string {
  if (!value) return '—';
  return formatInstant(value, displayZone());
}
