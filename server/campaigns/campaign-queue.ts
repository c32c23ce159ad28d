// The provider sends the campaigns created through the owner API in the background, one at a time per
// process, and on start resumes the ones a previous process left unfinished. A scheduler looks every few
// seconds for deliveries that have come due (a scheduled campaign, a zone reaching its local time, a retry a
// stopped process left) and sends their campaigns; the schedule itself is in the database.
import type { Database } from '../db/database.ts';
import { isServerError } from '../errors.ts';
import { sendCampaign, type SendCampaignOptions } from './campaign-sender.ts';
import type { HostedSite } from '../sites.ts';
import { join } from 'node:path';
import { signingKeys } from '../keys/index.ts';
import { systemClock } from '../clock.ts';
import { claimLeaseSeconds, unclaimed } from './claim-lease.ts';
import { campaignFailures } from './delivery-failures.ts';
import { resumeCreation } from './chunked-creation.ts';
import { failureGroupLine } from '../../contract/delivery-failures.ts';

const RETRY_UNAVAILABLE_MS = 5000;

/** A throttled campaign sends for this long at a time, then the process's other campaigns get a turn. */
export const THROTTLE_SLICE_MS = 30_000;

/** How often the scheduler looks for deliveries come due. */
export const SCHEDULER_INTERVAL_MS = 5000;

export type CampaignQueueOptions = Pick<SendCampaignOptions, 'ca' | 'concurrency' | 'pushServices' | 'clock' | 'retry'> & {
  log?: (line: string) => void;
};

export class CampaignQueue {
  private chain: Promise<void> = Promise.resolve();
  private readonly abort = new AbortController();
  /** Campaigns queued or being sent by this process: the scheduler does not queue them twice. */
  private readonly queued = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** Throttled campaigns that handed back after their turn (THROTTLE_SLICE_MS) and go on after the others. */
  private readonly yielded = new Set<string>();
  /** Campaigns waiting for their site's key, said once each, not at every look of the scheduler. */
  private readonly waitingForKey = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly sites: HostedSite[],
    /** Folder holding `keys/<name>.json` (the `.push-kit` folder). */
    private readonly stateDir: string,
    private readonly options: CampaignQueueOptions = {},
  ) {}

  enqueue(siteHash: string, campaignId: string): void {
    if (this.queued.has(campaignId)) return;
    this.queued.add(campaignId);
    this.chain = this.chain
      .then(() => this.send(siteHash, campaignId))
      .finally(() => {
        this.queued.delete(campaignId);
        // a throttled campaign that handed back after its turn goes to the end of the line
        if (this.yielded.delete(campaignId) && !this.abort.signal.aborted) this.enqueue(siteHash, campaignId);
      });
  }

  /** The time the campaigns go by. */
  now(): number {
    return (this.options.clock ?? systemClock)();
  }

  /**
   * Queues every campaign with a delivery come due and not held by a live sender; returns how many it queued.
   * Automated messages are the automation runner's (server/automations/automation-runner.ts).
   */
  async tick(): Promise<number> {
    const { rows } = await this.db.query<{ id: string; site_hash: string }>(
      `SELECT c.id, c.site_hash FROM campaigns c
       WHERE c.status IN ('pending', 'scheduled', 'sending', 'waiting_for_key') AND c.automation IS NULL AND NOT c.creating AND c.id IN (
         SELECT d.campaign_id FROM deliveries d
         WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND ${unclaimed('$2')})
       ORDER BY c.id`,
      [new Date(this.now()).toISOString(), claimLeaseSeconds()],
    );
    const fresh = rows.filter((row) => !this.queued.has(String(row.id)));
    for (const row of fresh) this.enqueue(row.site_hash, String(row.id));
    return fresh.length;
  }

  /** Starts looking for deliveries come due every SCHEDULER_INTERVAL_MS. */
  startScheduler(intervalMs = SCHEDULER_INTERVAL_MS): void {
    if (this.timer) return;
    const log = this.options.log ?? ((line: string) => console.log(line));
    this.timer = setInterval(() => {
      this.tick().catch((error: unknown) => {
        if (!isServerError(error, 'E_DATABASE_UNAVAILABLE')) log(`campaign scheduler: ${(error as Error).message}`);
      });
    }, intervalMs);
    this.timer.unref();
  }

  /** Campaigns with deliveries still pending, oldest first; automated messages are the automation runner's. */
  async resumeUnfinished(): Promise<number> {
    // a campaign a stopped provider left half-created is written to the end first, then goes with the rest
    await resumeCreation(this.db, this.options.log ?? ((line: string) => console.log(line)));
    const { rows } = await this.db.query<{ id: string; site_hash: string }>(
      `SELECT c.id, c.site_hash FROM campaigns c
       WHERE c.status <> 'done' AND c.automation IS NULL AND NOT c.creating AND EXISTS (SELECT 1 FROM deliveries d WHERE d.campaign_id = c.id AND d.status = 'pending')
       ORDER BY c.id`,
    );
    for (const row of rows) this.enqueue(row.site_hash, String(row.id));
    return rows.length;
  }

  /** Whether this process is sending a campaign now (the webhook dispatcher slows down meanwhile). */
  busy(): boolean {
    return this.queued.size > 0;
  }

  /** Resolves when every queued campaign has been sent (or stopped). */
  idle(): Promise<void> {
    return this.chain;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.abort.abort();
    await this.chain;
  }

  private async send(siteHash: string, campaignId: string): Promise<void> {
    if (this.abort.signal.aborted) return;
    const log = this.options.log ?? ((line: string) => console.log(line));
    const site = this.sites.find((candidate) => candidate.hash === siteHash);
    if (!site) return;
    try {
      // The site's key ring, read at each send: a rotation, an import or a fixed key file counts at once.
      const keys = await signingKeys(this.stateDir, site);
      const onWaitingForKey = (problem: string) => {
        if (this.waitingForKey.has(campaignId)) return;
        this.waitingForKey.add(campaignId);
        const dir = join(this.stateDir, 'keys');
        log(`campaign ${campaignId} of ${site.name} waits for a VAPID key that can sign (${problem}): fix it in ${dir}; it goes out then`);
      };
      const counts = await sendCampaign(this.db, site, campaignId, keys, {
        ...this.options,
        signal: this.abort.signal,
        onWaitingForKey,
        throttleSliceMs: THROTTLE_SLICE_MS,
        onThrottleYield: () => this.yielded.add(campaignId),
      });
      if (counts.sent === 0) return;
      this.waitingForKey.delete(campaignId);
      // one line per campaign run, with why deliveries failed (the campaign's, grouped by reason)
      const failures = counts.failed + counts.expired > 0 ? ((await campaignFailures(this.db, [campaignId])).get(campaignId) ?? []) : [];
      log(
        `campaign ${campaignId} of ${site.name}: ${counts.delivered} delivered, ${counts.expired} expired, ${counts.failed} failed` +
          (failures.length > 0 ? ` (${failures.map(failureGroupLine).join('; ')})` : ''),
      );
    } catch (error) {
      if (isServerError(error, 'E_DATABASE_UNAVAILABLE') && !this.abort.signal.aborted) {
        // The database is away (restart, failover): the campaign goes on once it is back, from where it stopped.
        log(`campaign ${campaignId} of ${site.name} paused: ${error.message}; trying again in ${RETRY_UNAVAILABLE_MS / 1000} s`);
        setTimeout(() => this.enqueue(siteHash, campaignId), RETRY_UNAVAILABLE_MS).unref();
        return;
      }
      log(`campaign ${campaignId} of ${site.name} not sent: ${(error as Error).message}`);
    }
  }
}
