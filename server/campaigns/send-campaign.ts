// Sends one notification to a site's subscribers (or one segment's) from a project folder: the site's config,
// its private VAPID key (`.push-kit/keys/<name>.json`) and the provider's database. `push-kit send` is this plus
// a progress bar; the package exports it as `sendCampaign`. Throws `SendCampaignError` or `UnknownSiteError`
// (each with a code) for anything the caller can fix.
import { createCampaign } from './campaign-store.ts';
import type { CampaignProgress } from './campaign-sender.ts';
import type { CampaignCounts } from './campaign-runner.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { siteNamed, type HostedSite } from '../sites.ts';
import { readVapidKeyFile, type VapidKeyPair } from '../push/vapid-keys.ts';
import { embeddedDatabaseDir, STATE_DIR, vapidKeyFile } from '../state-paths.ts';
import { campaignInputSchema, type CampaignRequest } from '../../contract/campaign-input.ts';
import { PushServiceAllowlist, PushServicesSettingError } from '../push/push-services.ts';

export type SendCampaignErrorCode = 'E_ARGUMENT' | 'E_KEY_READ' | 'E_KEY_MISMATCH' | 'E_DATABASE' | 'E_SEGMENT';

export class SendCampaignError extends Error {
  constructor(
    message: string,
    readonly code: SendCampaignErrorCode,
  ) {
    super(message);
    this.name = 'SendCampaignError';
  }
}

export interface SendCampaignOptions {
  /** The site's name: its config file's base name. */
  site: string;
  title: string;
  body: string;
  /** The page opened on click. */
  url?: string;
  /** Only the subscribers of the segment with this sid. */
  segment?: string;
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
  onProgress?(counts: CampaignCounts): void;
  /** Push service origins allowed beside none other (`--push-services`); default PUSHKIT_PUSH_SERVICES, else the known ones. */
  pushServices?: string | readonly string[];
}

export interface SendCampaignResult extends CampaignProgress {
  campaignId: string;
  site: string;
  /** When the campaign waits for its time: the earliest delivery's due time (ISO); nothing was sent yet. */
  scheduledFor?: string;
}

async function siteKeys(site: HostedSite, stateDir: string): Promise<VapidKeyPair> {
  const keyFile = vapidKeyFile(stateDir, site.name);
  let keys: VapidKeyPair;
  try {
    keys = await readVapidKeyFile(keyFile);
  } catch (error) {
    throw new SendCampaignError(`cannot read the site's private VAPID key ${keyFile}: ${(error as Error).message}`, 'E_KEY_READ');
  }
  if (keys.publicKey !== site.config.vapidPublicKey) {
    throw new SendCampaignError(
      `${keyFile} is not the key pair of ${site.file}'s vapidPublicKey: subscribers would refuse its messages`,
      'E_KEY_MISMATCH',
    );
  }
  return keys;
}

async function openProviderDatabase(site: HostedSite, url: string | undefined, stateDir: string): Promise<Database> {
  try {
    return await openDatabase({ url, dataDir: embeddedDatabaseDir(stateDir) });
  } catch (error) {
    const inUse = /is in use by /.test((error as Error).message);
    throw new SendCampaignError(
      `cannot open the database: ${(error as Error).message}` +
        (inUse
          ? `\n  A provider is running on it: let it send, with the site's owner key: push-kit send --site ${site.name} ... --key <owner key>`
          : ''),
      'E_DATABASE',
    );
  }
}

function allowedPushServices(setting: string | readonly string[] | undefined): PushServiceAllowlist {
  try {
    return setting === undefined ? PushServiceAllowlist.fromEnvironment() : PushServiceAllowlist.fromSetting(setting);
  } catch (error) {
    if (error instanceof PushServicesSettingError) throw new SendCampaignError(`--push-services: ${error.message}`, 'E_ARGUMENT');
    throw error;
  }
}

/** Creates the campaign and sends it from this process; resolves with the final counts. */
export async function sendCampaign(options: SendCampaignOptions): Promise<SendCampaignResult> {
  const parsed = campaignInputSchema.safeParse({
    title: options.title,
    body: options.body,
    url: options.url,
    segment: options.segment,
    sendAt: options.sendAt,
    localTime: options.localTime,
    appBadge: options.appBadge,
    topic: options.topic,
    ttl: options.ttl,
    variants: options.variants,
    testFraction: options.testFraction,
    winnerAfterMinutes: options.winnerAfterMinutes,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SendCampaignError(`${issue.path.join('.')}: ${issue.message}`, 'E_ARGUMENT');
  }
  const campaign = parsed.data;
  const pushServices = allowedPushServices(options.pushServices);
  const stateDir = options.stateDir ?? STATE_DIR;
  const site = await siteNamed(options.site, options.sites, options.dist);
  const keys = await siteKeys(site, stateDir);
  // The sender (and its HTTP client) loads when a campaign is sent, not with the package's entry.
  const [{ campaignProgress, sendCampaign: sendStoredCampaign }, { closePushConnections }] = await Promise.all([
    import('./campaign-sender.ts'),
    import('../push/send.ts'),
  ]);
  const db = await openProviderDatabase(site, options.database ?? process.env.DATABASE_URL, stateDir);
  try {
    if (campaign.segment) {
      const segment = await db.query('SELECT 1 FROM segments WHERE site_hash = $1 AND sid = $2', [site.hash, campaign.segment]);
      if (segment.rows.length === 0) {
        throw new SendCampaignError(`--segment: no segment "${campaign.segment}" on site ${site.name}`, 'E_SEGMENT');
      }
    }
    // The site's icon, as the dashboard's compose form offers it; the owner API leaves it to the caller.
    const { campaignId, recipients } = await createCampaign(db, site, { ...campaign, icon: site.config.style.iconUrl });
    options.onCreated?.({ campaignId, recipients, site });
    if (campaign.sendAt !== undefined || campaign.localTime !== undefined) {
      const due = await db.query<{ due: Date | null }>(
        `SELECT min(next_attempt_at) AS due FROM deliveries WHERE campaign_id = $1 AND status = 'pending'`,
        [campaignId],
      );
      const scheduledFor = due.rows[0]?.due ? new Date(due.rows[0].due).toISOString() : undefined;
      return { campaignId, site: site.name, ...(await campaignProgress(db, campaignId)), ...(scheduledFor ? { scheduledFor } : {}) };
    }
    await sendStoredCampaign(db, site, campaignId, keys, { onProgress: options.onProgress, pushServices });
    const progress = await campaignProgress(db, campaignId);
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
