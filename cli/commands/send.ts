// `push-kit send --site NAME --title T --body B [--url U] [--segment S]`: creates a campaign for the site's
// subscribers (or one segment's) and sends it from this process, with a progress bar and the final counts.
import { join } from 'node:path';
import { CliError } from '../errors.ts';
import { createCampaign } from '../../server/campaigns.ts';
import { campaignProgress, sendCampaign } from '../../server/campaign-sender.ts';
import { openDatabase } from '../../server/database.ts';
import { closePushConnections } from '../../server/push/send.ts';
import { loadSites } from '../../server/sites.ts';
import { keyFilePath, readVapidKeyFile, type VapidKeyPair } from '../../server/vapid-keys.ts';

const STATE_DIR = '.push-kit';

export interface SendOptions {
  site: string;
  title: string;
  body: string;
  url?: string;
  segment?: string;
  database?: string;
  sites?: string[];
  dist?: string;
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
  let keys: VapidKeyPair;
  const keyFile = keyFilePath(STATE_DIR, site.name);
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
    db = await openDatabase({ url, dataDir: join(STATE_DIR, 'db') });
  } catch (error) {
    throw new CliError(`cannot open the database: ${(error as Error).message}`, 'E_DATABASE');
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
