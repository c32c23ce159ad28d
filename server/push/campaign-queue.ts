// The provider sends the campaigns created through the owner API in the background, one at a time per
// process, and on start resumes the ones a previous process left unfinished.
import { DatabaseUnavailableError, type Database } from '../store/database.ts';
import { sendCampaign, type SendCampaignOptions } from './campaign-sender.ts';
import type { HostedSite } from '../sites.ts';
import { vapidKeyFile } from '../state-paths.ts';
import { readVapidKeyFile } from '../vapid-keys.ts';

const RETRY_UNAVAILABLE_MS = 5000;

export type CampaignQueueOptions = Pick<SendCampaignOptions, 'ca' | 'concurrency' | 'pushServices'> & { log?: (line: string) => void };

export class CampaignQueue {
  private chain: Promise<void> = Promise.resolve();
  private readonly abort = new AbortController();

  constructor(
    private readonly db: Database,
    private readonly sites: HostedSite[],
    /** Folder holding `keys/<name>.json` (the `.push-kit` folder). */
    private readonly stateDir: string,
    private readonly options: CampaignQueueOptions = {},
  ) {}

  enqueue(siteHash: string, campaignId: string): void {
    this.chain = this.chain.then(() => this.send(siteHash, campaignId));
  }

  /** Campaigns with deliveries still pending, oldest first; automated messages are the automation runner's. */
  async resumeUnfinished(): Promise<number> {
    const { rows } = await this.db.query<{ id: string; site_hash: string }>(
      `SELECT c.id, c.site_hash FROM campaigns c
       WHERE c.status <> 'done' AND c.automation IS NULL AND EXISTS (SELECT 1 FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'pending')
       ORDER BY c.id`,
    );
    for (const row of rows) this.enqueue(row.site_hash, String(row.id));
    return rows.length;
  }

  /** Resolves when every queued campaign has been sent (or stopped). */
  idle(): Promise<void> {
    return this.chain;
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.chain;
  }

  private async send(siteHash: string, campaignId: string): Promise<void> {
    if (this.abort.signal.aborted) return;
    const log = this.options.log ?? ((line: string) => console.log(line));
    const site = this.sites.find((candidate) => candidate.hash === siteHash);
    if (!site) return;
    try {
      const keys = await readVapidKeyFile(vapidKeyFile(this.stateDir, site.name));
      const counts = await sendCampaign(this.db, site, campaignId, keys, { ...this.options, signal: this.abort.signal });
      log(`campaign ${campaignId} of ${site.name}: ${counts.delivered} delivered, ${counts.expired} expired, ${counts.failed} failed`);
    } catch (error) {
      if (error instanceof DatabaseUnavailableError && !this.abort.signal.aborted) {
        // The database is away (restart, failover): the campaign goes on once it is back, from where it stopped.
        log(`campaign ${campaignId} of ${site.name} paused: ${error.message}; trying again in ${RETRY_UNAVAILABLE_MS / 1000} s`);
        setTimeout(() => this.enqueue(siteHash, campaignId), RETRY_UNAVAILABLE_MS).unref();
        return;
      }
      log(`campaign ${campaignId} of ${site.name} not sent: ${(error as Error).message}`);
    }
  }
}
