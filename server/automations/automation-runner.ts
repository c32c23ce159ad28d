// Sends the automated messages that are due (server/automations/automation-messages.ts), site by site and automation
// by automation, through the campaign runner: the same claims, retries, results and expiries as a campaign.
// A pass runs every `pollMs` and on demand (runDue); passes of one process never overlap, and the claims keep
// several processes from sending one message twice.
import type { Database } from '../db/database.ts';
import { isServerError } from '../errors.ts';
import { AutomationDeliveryStore, dropPendingMessages, settleMessages } from './automation-messages.ts';
import { automationSettings } from './automation-settings.ts';
import { runCampaign, vapidSubjectOf, type RunCounts, type CampaignSenderOptions } from '../campaigns/index.ts';
import type { HostedSite } from '../sites.ts';
import { signingKeys, type SigningKeys } from '../keys/index.ts';
import type { Clock } from '../clock.ts';
import { scheduleWinBacks } from './shop-messages.ts';
import { AUTOMATION_KINDS } from '../../contract/automations.ts';
import { DEFAULT_TTL_SECONDS } from '../../contract/campaign-limits.ts';
import { DEFAULT_URGENCY } from '../../contract/urgency.ts';

/** How often a provider looks for due messages: a message is sent at most this late. */
export const AUTOMATION_POLL_MS = 5000;
/** How often (in the provider's clock) a provider looks for subscribers to win back: the scan reads every subscriber. */
export const WIN_BACK_SCAN_MS = 60 * 60_000;

export interface AutomationRunnerOptions extends Pick<CampaignSenderOptions, 'ca' | 'concurrency' | 'pushServices'> {
  clock: Clock;
  /** Milliseconds between passes; default AUTOMATION_POLL_MS. 0: no passes but those runDue asks for. */
  pollMs?: number;
  log?: (line: string) => void;
}

const none = (): RunCounts => ({ sent: 0, delivered: 0, failed: 0, expired: 0 });

export class AutomationRunner {
  private pass: Promise<RunCounts> = Promise.resolve(none());
  private timer: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();
  private readonly reported = new Set<string>();
  private readonly winBackScans = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly sites: HostedSite[],
    /** Folder holding `keys/<name>.json` (the `.push-kit` folder). */
    private readonly stateDir: string,
    private readonly options: AutomationRunnerOptions,
  ) {}

  start(): void {
    const pollMs = this.options.pollMs ?? AUTOMATION_POLL_MS;
    if (pollMs <= 0) return;
    const tick = () => {
      void this.runDue().finally(() => {
        if (!this.abort.signal.aborted) this.timer = setTimeout(tick, pollMs).unref();
      });
    };
    this.timer = setTimeout(tick, pollMs).unref();
  }

  /** Sends what is due now (after the pass under way, if any); resolves with what this pass sent. */
  runDue(): Promise<RunCounts> {
    const next = this.pass.catch(none).then(() => this.runPass());
    this.pass = next;
    return next;
  }

  async close(): Promise<void> {
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.pass.catch(() => undefined);
  }

  private log(line: string): void {
    (this.options.log ?? ((text: string) => console.log(text)))(line);
  }

  /** The site's key ring, read at each pass (a rotation counts at once); undefined when no key can sign. */
  private async keysOf(site: HostedSite): Promise<SigningKeys | undefined> {
    const ring = await signingKeys(this.stateDir, site);
    // A key that cannot sign would get every message refused and marked failed: messages to its subscribers
    // wait (the claims skip them), and the files are read again next pass, until the key is fixed.
    const problems = [...ring.problems].map(([id, problem]) => `key ${id}: ${problem}`).join('; ');
    if (problems && !this.reported.has(site.name)) this.log(`automations of ${site.name} wait for a VAPID key that can sign: ${problems}`);
    if (problems) this.reported.add(site.name);
    else this.reported.delete(site.name);
    return ring.pairs.size > 0 ? ring : undefined;
  }

  private async runPass(): Promise<RunCounts> {
    const total = none();
    for (const site of this.sites) {
      if (this.abort.signal.aborted) break;
      try {
        await this.runSite(site, total);
      } catch (error) {
        const reason = isServerError(error, 'E_DATABASE_UNAVAILABLE')
          ? `${error.message}; trying again next pass`
          : (error as Error).message;
        this.log(`automations of ${site.name}: ${reason}`);
      }
    }
    return total;
  }

  private async runSite(site: HostedSite, total: RunCounts): Promise<void> {
    const settings = await automationSettings(this.db, site);
    const now = this.options.clock();
    const lastScan = this.winBackScans.get(site.hash);
    // A clock set back (a system clock corrected) scans again at once rather than an hour after the old time.
    if (settings.winBack.enabled && (lastScan === undefined || now < lastScan || lastScan + WIN_BACK_SCAN_MS <= now)) {
      this.winBackScans.set(site.hash, now);
      const scheduled = await scheduleWinBacks(this.db, site, settings.winBack, now);
      if (scheduled > 0) this.log(`automation winBack of ${site.name}: ${scheduled} scheduled`);
    }
    let ring: Promise<SigningKeys | undefined> | undefined;
    for (const kind of AUTOMATION_KINDS) {
      if (this.abort.signal.aborted) return;
      if (!settings[kind].enabled) {
        await dropPendingMessages(this.db, site.hash, kind, this.options.clock());
        continue;
      }
      const keys = await (ring ??= this.keysOf(site));
      if (!keys) return;
      const signable = { currentId: keys.currentId, ids: [...keys.pairs.keys()] };
      const store = new AutomationDeliveryStore(this.db, site.hash, kind, this.options.clock, site.config, signable);
      try {
        const counts = await runCampaign(store, kind, {
          vapid: keys.pairs.get(keys.currentId) ?? keys.pairs.values().next().value!,
          vapidKeys: keys.pairs,
          subject: vapidSubjectOf(site),
          ttl: DEFAULT_TTL_SECONDS,
          urgency: DEFAULT_URGENCY,
          concurrency: this.options.concurrency,
          signal: this.abort.signal,
          ca: this.options.ca,
          pushServices: this.options.pushServices,
        });
        for (const key of Object.keys(total) as (keyof RunCounts)[]) total[key] += counts[key];
        if (counts.sent > 0) {
          this.log(`automation ${kind} of ${site.name}: ${counts.delivered} delivered, ${counts.expired} expired, ${counts.failed} failed`);
        }
      } finally {
        // A pass that failed (database away) leaves claims behind: they lapse, and a later pass takes them.
        store.abandonClaims();
      }
      await settleMessages(this.db, site.hash, kind);
    }
  }
}
