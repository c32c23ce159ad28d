// The owner API (same origin, /api/v1/) with the signed-in site's key in the Authorization header.
import type { ConditionCheckReply } from '../../contract/conditions.ts';

export interface SiteSummary {
  name: string;
  hash: string;
  companyName: string;
  origin: string;
  iconUrl: string | null;
}

export type SubscriberStatus = 'subscribed' | 'unsubscribed' | 'blocked' | 'expired';
export const STATUSES: SubscriberStatus[] = ['subscribed', 'unsubscribed', 'blocked', 'expired'];
export const STATUS_LABELS: Record<SubscriberStatus, string> = {
  subscribed: 'Active',
  unsubscribed: 'Unsubscribed',
  blocked: 'Blocked',
  expired: 'Expired',
};

export interface Subscriber {
  id: string;
  uuid: string | null;
  status: SubscriberStatus;
  endpoint: string | null;
  browserType: string | null;
  language: string | null;
  timezone: string | null;
  origin: string | null;
  subscriptionPageUrl: string | null;
  createdAt: string;
  updatedAt: string;
  lastSyncAt: string | null;
  segments: string[];
  tags: Record<string, string>;
}

export interface SubscriberPage {
  total: number;
  limit: number;
  offset: number;
  subscribers: Subscriber[];
}

export interface SubscriberExport {
  subscriber: Omit<Subscriber, 'segments' | 'tags'> & Record<string, unknown>;
  tags: Record<string, string>;
  dimensions: Record<string, string>;
  segments: string[];
  events: { kind: string; campaignId: string | null; at: string | null }[];
  deliveries: { campaignId: string; status: string; attempts: number; updatedAt: string | null }[];
}

export interface ValueCount {
  value: string;
  count: number;
}

export interface Stats {
  total: number;
  byStatus: Record<SubscriberStatus, number>;
  days: { date: string; new: number; total: number }[];
  browsers: ValueCount[];
  languages: ValueCount[];
}

export interface Segment {
  sid: string;
  name: string;
  members: number;
  condition: string | null;
  configCondition: string | null;
  createdAt: string | null;
}

export type Urgency = 'very-low' | 'low' | 'normal' | 'high';

export interface CampaignAction {
  action: string;
  title: string;
  url?: string;
}

export interface Campaign {
  campaignId: string;
  title: string;
  body: string;
  url: string | null;
  icon: string | null;
  image: string | null;
  actions: CampaignAction[];
  segment: string | null;
  subscriberId: string | null;
  ttl: number;
  urgency: Urgency;
  status: 'pending' | 'sending' | 'done';
  createdAt: string;
  completedAt: string | null;
  recipients: number;
  sent: number;
  pending: number;
  delivered: number;
  failed: number;
  expired: number;
  shown: number;
  clicked: number;
}

export interface CampaignInput {
  title: string;
  body: string;
  url?: string;
  icon?: string;
  image?: string;
  actions?: CampaignAction[];
  segment?: string;
  subscriberId?: string;
  ttl: number;
  urgency: Urgency;
}

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

/** The sites a key opens; an ApiError 401 when it opens none. */
export function sitesFor(key: string): Promise<SiteSummary[]> {
  return request<{ sites: SiteSummary[] }>(key, 'sites').then((reply) => reply.sites);
}

/** The calls of one site, with its key. */
export function siteApi(key: string, site: string) {
  const base = `sites/${encodeURIComponent(site)}`;
  const id = encodeURIComponent;
  return {
    stats: (days: number) => request<Stats>(key, `${base}/stats${query({ days })}`),
    subscribers: (params: {
      limit: number;
      offset: number;
      search?: string;
      status?: string;
      segment?: string;
      order?: 'newest' | 'oldest';
    }) => request<SubscriberPage>(key, `${base}/subscribers${query(params)}`),
    subscriber: (subscriberId: string) => request<SubscriberExport>(key, `${base}/subscribers/${id(subscriberId)}`),
    exportSubscriber: (subscriberId: string) => request<unknown>(key, `${base}/subscribers/${id(subscriberId)}/export`),
    deleteSubscriber: (subscriberId: string) =>
      request<{ deleted: string }>(key, `${base}/subscribers/${id(subscriberId)}`, { method: 'DELETE' }),
    segments: () => request<{ segments: Segment[] }>(key, `${base}/segments`).then((reply) => reply.segments),
    createSegment: (body: { sid: string; name?: string; condition?: string }) =>
      request<Segment>(key, `${base}/segments`, { method: 'POST', body }),
    checkCondition: (condition: string) =>
      request<ConditionCheckReply>(key, `${base}/conditions/check`, { method: 'POST', body: { condition } }),
    deleteSegment: (sid: string) => request<{ deleted: string }>(key, `${base}/segments/${id(sid)}`, { method: 'DELETE' }),
    addMember: (sid: string, subscriberId: string) =>
      request<{ added: boolean }>(key, `${base}/segments/${id(sid)}/members/${id(subscriberId)}`, { method: 'PUT' }),
    removeMember: (sid: string, subscriberId: string) =>
      request<{ removed: boolean }>(key, `${base}/segments/${id(sid)}/members/${id(subscriberId)}`, { method: 'DELETE' }),
    audience: (audience: { segment?: string; subscriberId?: string }) =>
      request<{ recipients: number }>(key, `${base}/audience${query(audience)}`).then((reply) => reply.recipients),
    campaigns: (limit: number) =>
      request<{ campaigns: Campaign[] }>(key, `${base}/campaigns${query({ limit })}`).then((reply) => reply.campaigns),
    campaign: (campaignId: string) =>
      request<{ campaign: Campaign }>(key, `${base}/campaigns/${id(campaignId)}`).then((reply) => reply.campaign),
    createCampaign: (body: CampaignInput) =>
      request<{ campaignId: string; recipients: number }>(key, `${base}/campaigns`, { method: 'POST', body }),
  };
}

export type SiteApi = ReturnType<typeof siteApi>;

export const formatNumber = (value: number) => value.toLocaleString('en-US');

export function formatDate(value: string | null): string {
  if (!value) return '—';
  const date = new Date(value);
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 16)} UTC`;
}
