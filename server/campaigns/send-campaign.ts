// Sends one notification to a site's subscribers (or one segment's) from a project folder: the site's config,
// its private VAPID key (`.push-kit/keys/<name>.json`) and the provider's database. `push-kit send` is this plus
// a progress bar; the package exports it as `sendCampaign`. Throws a ServerError with its catalogue code
// (server/errors.ts) for anything the caller can fix.
import { createSiteCampaign } from './owner-campaigns.ts';
import { openProviderDatabase } from '../db/open-provider-database.ts';
import { ServerError } from '../errors.ts';
import { COMMAND_LINE_MEMBER, recordAudit } from '../http/audit-log.ts';
import type { CampaignProgress } from './campaign-sender.ts';
import type { RunCounts } from './campaign-runner.ts';
import { siteNamed, type HostedSite } from '../sites.ts';
import { readVapidKeyFile, type VapidKeyPair } from '../push/vapid-keys.ts';
import { embeddedDatabaseDir, STATE_DIR, vapidKeyFile } from '../state-paths.ts';
import { campaignInputSchema, type CampaignRequest } from '../../contract/campaign-input.ts';
import { allowedPushServices } from '../push/push-services.ts';
import { signingKeys } from '../keys/index.ts';
import { campaignFailures } from './delivery-failures.ts';
import { claimLeaseSeconds } from './claim-lease.ts';
import type { DeliveryFailureGroup } from '../../contract/delivery-failures.ts';

export interface SendCampaignOptions {
  /** The site's name: its config file's base name. */
  site: string;
  title: string;
  body: string;
  /** The page opened on click. */
  url?: string;
  /** Texts per language tag beside title and body: each subscriber gets the best match of their language. */
  texts?: CampaignRequest['texts'];
  /** Only the subscribers of the segment with this sid. */
  segment?: string;
  /** Only the subscribers the audience with this id matches now (docs/audiences.md). */
  audience?: string;
  /** Send at this time (ISO 8601 with offset) instead of now: the campaign is stored and `push-kit serve` sends it. */
  sendAt?: string;
  /** Send when each subscriber's clock first shows this time ("HH:MM") at or after sendAt (or now). */
  localTime?: string;
  /** The app badge number the notification sets. */
  appBadge?: number;
  /** The Topic header: a newer message of the topic replaces an undelivered older one. */
  topic?: string;
  /** Seconds the push service keeps the message for an offline browser. */
  ttl?: number;
  /** An A/B test: 2 to 4 variants, the share of the audience they go to, minutes until the winner goes to the rest. */
  variants?: CampaignRequest['variants'];
  testFraction?: number;
  winnerAfterMinutes?: number;
  /** Deliveries per minute at most (across every provider on the database); absent: the site's campaigns.throttlePerMinute. */
  throttlePerMinute?: number;
  /** best-hour: each subscriber at the hour of day they click most; bestHourHoldout of them at once. */
  deliverAt?: CampaignRequest['deliverAt'];
  bestHourHoldout?: number;
  /** postgres://...; the embedded database in `<stateDir>/db` when absent. */
  database?: string;
  /** Site config globs (default `site-configs/*.json`). */
  sites?: string[];
  /** Folder of built sites (default `dist`). */
  dist?: string;
  /** The project's state folder (default `.push-kit`). */
  stateDir?: string;
  /** Called once the campaign exists, before sending. */
  onCreated?(campaign: { campaignId: string; recipients: number; site: HostedSite }): void;
  onProgress?(counts: RunCounts): void;
  /** Push service origins allowed beside none other (`--push-services`); default PUSHKIT_PUSH_SERVICES, else the known ones. */
  pushServices?: string | readonly string[];
}

export interface SendCampaignResult extends CampaignProgress {
  campaignId: string;
  site: string;
  /** Its failed and expired deliveries by the push service's status, reason and host, most first. */
  failures: DeliveryFailureGroup[];
  /** When the campaign waits for its time: the earliest delivery's due time (ISO); nothing was sent yet. */
  scheduledFor?: string;
  /** A best-hour campaign: when its last subscriber's hour comes (ISO). */
  finishesBy?: string;
}

async function siteKeys(site: HostedSite, stateDir: string): Promise<VapidKeyPair> {
  const keyFile = vapidKeyFile(stateDir, site.name);
  let keys: VapidKeyPair;
  try {
    keys = await readVapidKeyFile(keyFile);
  } catch (error) {
    throw ServerError.causedBy(error, 'E_VAPID_KEY_READ', { keyFile, reason: (error as Error).message });
  }
  if (keys.publicKey !== site.config.vapidPublicKey) throw new ServerError('E_VAPID_KEY_MISMATCH', { keyFile, configFile: site.file });
  return keys;
}

/** Creates the campaign and sends it from this process; resolves with the final counts. */
export async function sendCampaign(options: SendCampaignOptions): Promise<SendCampaignResult> {
  const parsed = campaignInputSchema.safeParse({
    title: options.title,
    body: options.body,
    url: options.url,
    texts: options.texts,
    segment: options.segment,
    audience: options.audience,
    sendAt: options.sendAt,
    localTime: options.localTime,
    appBadge: options.appBadge,
    topic: options.topic,
    ttl: options.ttl,
    variants: options.variants,
    testFraction: options.testFraction,
    winnerAfterMinutes: options.winnerAfterMinutes,
    throttlePerMinute: options.throttlePerMinute,
    deliverAt: options.deliverAt,
    bestHourHoldout: options.bestHourHoldout,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ServerError('E_PARAM_INVALID', { param: issue.path.join('.'), problem: issue.message });
  }
  const campaign = parsed.data;
  const pushServices = allowedPushServices(options.pushServices);
  // the senders' claim lease (PUSHKIT_CLAIM_LEASE_SECONDS): a bad setting stops `send` before the campaign exists
  claimLeaseSeconds();
  const stateDir = options.stateDir ?? STATE_DIR;
  const site = await siteNamed(options.site, options.sites, options.dist);
  // The current key must be readable and the config's: `send` stops with a clear error rather than wait.
  await siteKeys(site, stateDir);
  // The sender (and its HTTP client) loads when a campaign is sent, not with the package's entry.
  const [{ campaignProgress, sendCampaign: sendStoredCampaign }, { closePushConnections }] = await Promise.all([
    import('./campaign-sender.ts'),
    import('../push/send.ts'),
  ]);
  const db = await openProviderDatabase(options.database ?? process.env.DATABASE_URL, embeddedDatabaseDir(stateDir));
  try {
    // The site's icon, as the dashboard's compose form offers it; the owner API leaves it to the caller.
    const { campaignId, recipients } = await createSiteCampaign(db, site, { ...campaign, icon: site.config.style.iconUrl });
    // straight on the database, not through the owner API: the audit log names the command line (docs/members.md)
    await recordAudit(db, site.hash, COMMAND_LINE_MEMBER, 'campaign.create', campaignId);
    options.onCreated?.({ campaignId, recipients, site });
    if (campaign.sendAt !== undefined || campaign.localTime !== undefined) {
      const due = await db.query<{ due: Date | null }>(
        `SELECT min(next_attempt_at) AS due FROM deliveries WHERE campaign_id = $1 AND status = 'pending'`,
        [campaignId],
      );
      const scheduledFor = due.rows[0]?.due ? new Date(due.rows[0].due).toISOString() : undefined;
      return {
        campaignId,
        site: site.name,
        ...(await campaignProgress(db, campaignId)),
        failures: [],
        ...(scheduledFor ? { scheduledFor } : {}),
      };
    }
    // Each subscriber's push is signed with the key on the site's ring it was made with (server/keys/).
    await sendStoredCampaign(db, site, campaignId, await signingKeys(stateDir, site), { onProgress: options.onProgress, pushServices });
    const progress = {
      ...(await campaignProgress(db, campaignId)),
      failures: (await campaignFailures(db, [campaignId])).get(campaignId) ?? [],
    };
    if (campaign.deliverAt !== undefined && progress.pending > 0) {
      // a best-hour campaign's held-out share went now; the provider sends the rest at their hours
      const due = await db.query<{ first: Date; last: Date }>(
        `SELECT min(next_attempt_at) AS first, max(next_attempt_at) AS last FROM deliveries WHERE campaign_id = $1 AND status = 'pending'`,
        [campaignId],
      );
      const { first, last } = due.rows[0]!;
      return {
        campaignId,
        site: site.name,
        ...progress,
        scheduledFor: new Date(first).toISOString(),
        finishesBy: new Date(last).toISOString(),
      };
    }
    if (campaign.variants !== undefined && progress.pending > 0) {
      // an A/B test's rest waits for the winner, which the provider sends
      const winner = await db.query<{ winner_at: Date }>('SELECT winner_at FROM campaigns WHERE id = $1', [campaignId]);
      return { campaignId, site: site.name, ...progress, scheduledFor: new Date(winner.rows[0]!.winner_at).toISOString() };
    }
    return { campaignId, site: site.name, ...progress };
  } finally {
    await closePushConnections();
    await db.close();
  }
}
