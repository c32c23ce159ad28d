// `push-kit send --site NAME --title T --body B [--url U] [--segment S]`: creates a campaign for the site's
// subscribers (or one segment's) and sends it from this process, with a progress bar and the final counts.
import { CliError } from '../errors.ts';
import { createCampaign } from '../../server/store/campaigns.ts';
import { campaignProgress, sendCampaign } from '../../server/push/campaign-sender.ts';
import { openDatabase } from '../../server/store/database.ts';
import { closePushConnections } from '../../server/push/send.ts';
import { loadSites } from '../../server/sites.ts';
import { embeddedDatabaseDir, STATE_DIR, vapidKeyFile } from '../../server/state-paths.ts';
import { readVapidKeyFile, type VapidKeyPair } from '../../server/vapid-keys.ts';

export interface SendOptions {
  site: string;
  title: string;
  body: string;
  url?: string;
  segment?: string;
  database?: string;
  sites?: string[];
  dist?: string;
  /** Send through a running provider's owner API with this key (or PUSHKIT_OWNER_KEY) instead of the database. */
  key?: string;
  /** The provider's URL for --key (default: the site's serverSyncUrl). */
  provider?: string;
}

interface CampaignReply {
  status: string;
  message?: string;
  campaignId?: string;
  recipients?: number;
  campaign?: { status: string; recipients: number; pending: number; delivered: number; failed: number; expired: number };
}

/** The campaign is created by the running provider, which sends it; this polls its progress. */
async function sendThroughProvider(options: SendOptions, siteName: string, provider: string, key: string): Promise<number> {
  const base = `${provider.replace(/\/+$/, '')}/api/v1/sites/${encodeURIComponent(siteName)}/campaigns`;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const call = async (url: string, init?: RequestInit): Promise<CampaignReply> => {
    let response: Response;
    try {
      response = await fetch(url, { ...init, headers });
    } catch (error) {
      throw new CliError(`cannot reach the provider at ${provider}: ${(error as Error).message}`, 'E_PROVIDER');
    }
    const reply = (await response.json().catch(() => ({ status: 'failure', message: `HTTP ${response.status}` }))) as CampaignReply;
    if (!response.ok) throw new CliError(`the provider refused: ${reply.message ?? `HTTP ${response.status}`}`, 'E_PROVIDER');
    return reply;
  };
  const created = await call(base, {
    method: 'POST',
    body: JSON.stringify({ title: options.title, body: options.body, url: options.url, segment: options.segment }),
  });
  const recipients = created.recipients ?? 0;
  console.log(
    `campaign ${created.campaignId}: ${recipients} recipient${recipients === 1 ? '' : 's'} (sent by the provider at ${provider})`,
  );
  const tty = process.stdout.isTTY === true;
  for (;;) {
    const { campaign } = await call(`${base}/${created.campaignId}`);
    if (!campaign) throw new CliError('the provider sent no campaign progress', 'E_PROVIDER');
    if (tty) process.stdout.write(`\r${progressBar(campaign.recipients - campaign.pending, campaign.recipients)}`);
    if (campaign.status === 'done' || campaign.pending === 0) {
      if (tty) process.stdout.write('\n');
      console.log(
        `sent to ${campaign.recipients}: ${campaign.delivered} delivered, ${campaign.expired} expired, ${campaign.failed} failed`,
      );
      return campaign.failed > 0 ? 1 : 0;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function progressBar(done: number, total: number, width = 30): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`;
}

function checkText(name: string, value: string, max: number): void {
  if (!value.trim()) throw new CliError(`--${name}: must not be empty`, 'E_ARGUMENT');
  if (value.length > max) throw new CliError(`--${name}: at most ${max} characters (got ${value.length})`, 'E_ARGUMENT');
}

export async function runSend(options: SendOptions): Promise<number> {
  checkText('title', options.title, 200);
  checkText('body', options.body, 1000);
  if (options.url !== undefined && !/^https?:\/\/[^\s]+$/.test(options.url)) {
    throw new CliError(`--url: must be an absolute http(s) URL (got "${options.url}")`, 'E_ARGUMENT');
  }
  const { sites } = await loadSites(options.sites ?? ['site-configs/*.json'], options.dist ?? 'dist');
  const site = sites.find((candidate) => candidate.name === options.site);
  if (!site) {
    const known = sites.map((candidate) => candidate.name).join(', ') || 'none';
    throw new CliError(`--site: no valid site config named "${options.site}" (sites: ${known})`, 'E_SITE');
  }
  const ownerKey = options.key ?? process.env.PUSHKIT_OWNER_KEY;
  if (ownerKey) return sendThroughProvider(options, site.name, options.provider ?? site.config.serverSyncUrl, ownerKey);

  let keys: VapidKeyPair;
  const keyFile = vapidKeyFile(STATE_DIR, site.name);
  try {
    keys = await readVapidKeyFile(keyFile);
  } catch (error) {
    throw new CliError(`cannot read the site's private VAPID key ${keyFile}: ${(error as Error).message}`, 'E_KEY');
  }
  if (keys.publicKey !== site.config.vapidPublicKey) {
    throw new CliError(`${keyFile} is not the key pair of ${site.file}'s vapidPublicKey: subscribers would refuse its messages`, 'E_KEY');
  }

  const url = options.database ?? process.env.DATABASE_URL;
  let db;
  try {
    db = await openDatabase({ url, dataDir: embeddedDatabaseDir(STATE_DIR) });
  } catch (error) {
    const inUse = /is in use by process/.test((error as Error).message);
    throw new CliError(
      `cannot open the database: ${(error as Error).message}` +
        (inUse
          ? `\n  A provider is running on it: let it send, with the site's owner key: push-kit send --site ${site.name} ... --key <owner key>`
          : ''),
      'E_DATABASE',
    );
  }
  try {
    if (options.segment) {
      const segment = await db.query('SELECT 1 FROM segments WHERE site_hash = $1 AND sid = $2', [site.hash, options.segment]);
      if (segment.rows.length === 0) throw new CliError(`--segment: no segment "${options.segment}" on site ${site.name}`, 'E_SEGMENT');
    }
    const { campaignId, recipients } = await createCampaign(db, site, {
      title: options.title,
      body: options.body,
      url: options.url,
      icon: site.config.style.iconUrl,
      segment: options.segment,
      ttl: 86_400,
      urgency: 'normal',
    });
    console.log(`campaign ${campaignId}: ${recipients} recipient${recipients === 1 ? '' : 's'}`);
    const tty = process.stdout.isTTY === true;
    let last = 0;
    await sendCampaign(db, site, campaignId, keys, {
      onProgress: (counts) => {
        const done = counts.delivered + counts.failed + counts.expired;
        if (tty && Date.now() - last > 100) {
          last = Date.now();
          process.stdout.write(`\r${progressBar(done, recipients)}`);
        }
      },
    });
    const final = await campaignProgress(db, campaignId);
    if (tty) process.stdout.write(`\r${progressBar(final.recipients - final.pending, final.recipients)}\n`);
    console.log(
      `sent to ${final.recipients}: ${final.delivered} delivered, ${final.expired} expired, ${final.failed} failed` +
        (final.pending ? `, ${final.pending} still pending (retried by the next send or serve)` : ''),
    );
    return final.failed > 0 ? 1 : 0;
  } finally {
    await closePushConnections();
    await db.close();
  }
}
