// One running provider, assembled in one place for `push-kit serve`, `push-kit dev`, the tests and the
// benchmarks: the hosted sites, the database, the owner keys, the campaign queue and the fastify app, listening.
// `close()` stops them in the order that loses nothing: no new requests, then the campaigns in flight, then
// the push connections, then the database.
import type { FastifyInstance } from 'fastify';
import { openProviderDatabase } from './db/open-provider-database.ts';
import { ServerError } from './errors.ts';
import type { CreateAppOptions } from './http/app.ts';
import type { CampaignQueue, CampaignQueueOptions } from './campaigns/index.ts';
import type { AutomationRunner } from './automations/index.ts';
import type { FeedPoller, FeedPollerOptions } from './feeds/index.ts';
import type { WebhookDispatcher, WebhookDispatcherOptions, WebhookUrlSettings } from './webhooks/index.ts';
import { systemClock, type Clock } from './clock.ts';
import { allowedPushServices } from './push/push-services.ts';
import { EVENT_RETENTION_ENV, retentionDays } from './db/event-retention.ts';
import { scheduleEventPruning } from './db/event-pruning-schedule.ts';
import { loadSites, type HostedSite } from './sites.ts';
import { embeddedDatabaseDir, STATE_DIR } from './state-paths.ts';
import type { Database } from './db/database.ts';
import { redactedDatabaseUrl } from './db/database-url.ts';
import { ensureOwnerKey, ownerKeyCreatedAt, ownerKeyHashFromInit } from './http/owner-keys.ts';
import { requirePrivateState } from './state-privacy.ts';
import { localProviderUrl, newProviderToken, writeProviderFile } from './provider-file.ts';

export interface StartProviderOptions {
  /** Site config files or globs (`site-configs/*.json`) to host; or `sites`, already loaded. */
  configs?: string[];
  sites?: HostedSite[];
  /** Folder of the built sites, `<dist>/<name>/` (default `dist`); used with `configs`. */
  dist?: string;
  /** Called with one line per config that cannot be hosted (`FILE: field.path: message`); default: ignored. */
  onConfigProblem?: (line: string) => void;
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** postgres://... for a PostgreSQL server; absent: the embedded database in `<stateDir>/db`. */
  database?: string;
  /** The `.push-kit` folder (VAPID keys, owner keys from init, embedded database). Default `.push-kit`. */
  stateDir?: string;
  rateLimit?: CreateAppOptions['rateLimit'];
  /** Proxies trusted to name the client (`--trust-proxy`): true, or proxy addresses/CIDRs; default none. */
  trustProxy?: CreateAppOptions['trustProxy'];
  /** Milliseconds a client has to send a whole request (headers and body); default 30 000. */
  requestTimeoutMs?: number;
  /** Milliseconds a connection may stay silent; default 10 000. */
  connectionTimeoutMs?: number;
  /** Connections one client address (an IPv6 /64) may hold open; default 64; 0: no cap. Trusted proxies are not capped. */
  maxConnectionsPerAddress?: number;
  /** Milliseconds `close()` gives the requests being answered before it ends their connections; default 10 000. */
  closeGraceMs?: number;
  logger?: boolean;
  /** Options of the campaign sender (a test's push service certificate, concurrency, where it logs). */
  campaigns?: Omit<CampaignQueueOptions, 'pushServices'>;
  /**
   * The push service origins subscriptions may use and campaigns may post to (comma-separated or a list),
   * replacing the known push services; default PUSHKIT_PUSH_SERVICES, else the known ones. A test's local
   * push service is allowed this way.
   */
  pushServices?: string | readonly string[];
  /** Days events are kept (pruned at start and daily); default PUSHKIT_EVENT_RETENTION_DAYS, else 180. */
  eventRetentionDays?: number | string;
  /** Where pruning logs what it deleted or why it failed; default: ignored. */
  log?: (line: string) => void;
  /** The time automated messages fall due by (server/clock.ts); tests move it forward. Default: the system clock. */
  clock?: Clock;
  /** Milliseconds between looks for due automated messages; default 5000; 0: only when `automations.runDue()` is called. */
  automationPollMs?: number;
  /**
   * Webhooks (docs/webhooks.md): where endpoints may point (`allowHttp`: http to loopback, --allow-http-webhooks;
   * `privateOrigins`: origins that may resolve to private addresses; default from the environment), a test
   * receiver's certificate, and how often the queue is read (`pollMs` 0: only on `webhooks.runDue()`).
   */
  webhooks?: WebhookUrlSettings & Pick<WebhookDispatcherOptions, 'ca' | 'pollMs' | 'concurrency' | 'timeoutMs'>;
  /**
   * Feeds (docs/feeds.md): hosts whose feeds may be http or private (`allowHosts`, --allow-feed-hosts; default
   * PUSHKIT_ALLOW_FEED_HOSTS), how often due feeds are looked for (`pollMs` 0: only on `feeds.runDue()`), a
   * fetch's timeout and size cap, a test feed server's certificate.
   */
  feeds?: { allowHosts?: string | readonly string[] } & Pick<FeedPollerOptions, 'pollMs' | 'timeoutMs' | 'maxBytes' | 'ca'>;
  /**
   * On the embedded database: write `<stateDir>/provider.json` while it runs (server/provider-file.ts), so that
   * `send`, `campaigns` and `keys` of the same folder find it and open the owner API with its token. `serve`, `dev`.
   */
  providerFile?: boolean;
}

export interface Provider {
  /** `http://<host>:<port>` as bound (a free port resolved). */
  url: string;
  port: number;
  host: string;
  app: FastifyInstance;
  db: Database;
  sites: HostedSite[];
  /** Where the data lives, for printing: `embedded database .push-kit/db` or `PostgreSQL <URL without password>`. */
  storage: string;
  /** Owner keys created by this start, by site name: readable only now (only their hash is stored). */
  ownerKeys: Map<string, string>;
  campaigns: CampaignQueue;
  /** Sends the automated messages (welcome, abandoned cart) as they fall due. */
  automations: AutomationRunner;
  /** Sends the queued webhook events. */
  webhooks: WebhookDispatcher;
  /** Polls the sites' feeds and sends their new items. */
  feeds: FeedPoller;
  /** Campaigns a previous process left unfinished, queued again on start. */
  resumed: number;
  close(): Promise<void>;
}

async function hostedSites(options: StartProviderOptions): Promise<HostedSite[]> {
  if (options.sites) return options.sites;
  const configs = options.configs ?? [];
  const { sites, problems } = await loadSites(configs, options.dist ?? 'dist');
  for (const problem of problems) options.onConfigProblem?.(problem);
  if (sites.length === 0) throw new ServerError('E_NO_SITES', { globs: configs.join(' ') });
  return sites;
}

export async function startProvider(options: StartProviderOptions = {}): Promise<Provider> {
  const stateDir = options.stateDir ?? STATE_DIR;
  const pushServices = allowedPushServices(options.pushServices);
  const eventRetention = retentionDays(options.eventRetentionDays ?? process.env[EVENT_RETENTION_ENV]);
  if (eventRetention === null) {
    throw new ServerError('E_EVENT_RETENTION_SETTING', { value: String(options.eventRetentionDays ?? process.env[EVENT_RETENTION_ENV]) });
  }
  // the reporting window: a campaign's delivery rows are pruned this long after it is done (its figures stay)
  const { claimLeaseSeconds, conversionWindowOf, DELIVERY_RETENTION_ENV, deliveryRetentionDays, pruneCampaignClicks, pruneDeliveries } =
    await import('./campaigns/index.ts');
  const deliveryRetention = deliveryRetentionDays();
  if (deliveryRetention === null) {
    throw new ServerError('E_DELIVERY_RETENTION_SETTING', { value: String(process.env[DELIVERY_RETENTION_ENV]) });
  }
  // the senders' claim lease (PUSHKIT_CLAIM_LEASE_SECONDS): a bad setting stops the start, not the first send
  claimLeaseSeconds();
  const host = options.host ?? '127.0.0.1';
  const sites = await hostedSites(options);
  const dataDir = embeddedDatabaseDir(stateDir);
  await requirePrivateState(stateDir);
  const { WebhookDispatcher, webhookUrlPolicy } = await import('./webhooks/index.ts');
  const webhookPolicy = webhookUrlPolicy(options.webhooks);
  const { FeedPoller, feedUrlPolicy, syncConfigFeeds } = await import('./feeds/index.ts');
  const feedPolicy = feedUrlPolicy(options.feeds?.allowHosts);
  // fastify, the routes and the sender load when a provider starts, not with the package's entry; they load while
  // the database opens, in the gaps its WebAssembly compiling and file reading leave the main thread.
  const modules = Promise.all([
    import('./http/app.ts'),
    import('./campaigns/index.ts'),
    import('./automations/index.ts'),
    import('./push/send.ts'),
  ]);
  // (a start whose database does not open does not wait for them, nor leaves their failure unhandled)
  modules.catch(() => undefined);
  const db = await openProviderDatabase(options.database, dataDir);
  const [{ createApp }, { CampaignQueue }, { AutomationRunner, automationWindows }, { closePushConnections }] = await modules.catch(
    async (error: unknown) => {
      await db.close().catch(() => undefined);
      throw error;
    },
  );
  const clock = options.clock ?? systemClock;
  const webhooks = new WebhookDispatcher(db, {
    ...options.webhooks,
    policy: webhookPolicy,
    clock,
    log: options.campaigns?.log,
    busy: () => campaigns?.busy() ?? false,
  });
  const announce = options.providerFile === true && !options.database;
  const providerToken = announce ? newProviderToken() : undefined;

  let app: FastifyInstance | undefined;
  let campaigns: CampaignQueue | undefined;
  let automations: AutomationRunner | undefined;
  let feeds: FeedPoller | undefined;
  let removeProviderFile = async () => {};
  try {
    // the sites' config feeds, before anything is served: one the policy refuses stops the start, naming it
    await syncConfigFeeds(db, sites, feedPolicy, clock());
    campaigns = new CampaignQueue(db, sites, stateDir, { clock, ...options.campaigns, pushServices });
    automations = new AutomationRunner(db, sites, stateDir, {
      ca: options.campaigns?.ca,
      concurrency: options.campaigns?.concurrency,
      log: options.campaigns?.log,
      pushServices,
      clock,
      pollMs: options.automationPollMs,
    });
    app = await createApp({
      sites,
      db,
      campaigns,
      pushServices,
      clock,
      stateDir,
      providerToken,
      webhooks: webhookPolicy,
      feeds: feedPolicy,
      rateLimit: options.rateLimit,
      trustProxy: options.trustProxy,
      logger: options.logger,
      connectionLimits: {
        requestTimeoutMs: options.requestTimeoutMs,
        connectionTimeoutMs: options.connectionTimeoutMs,
        maxConnectionsPerAddress: options.maxConnectionsPerAddress,
        closeGraceMs: options.closeGraceMs,
      },
    });
    try {
      await app.listen({ port: options.port ?? 0, host });
    } catch (error) {
      throw new ServerError('E_LISTEN', { host, port: options.port ?? 0, reason: (error as Error).message });
    }
    // Keys are made once the provider listens: a start that fails (a port in use) must not store a key that
    // nobody was shown; the next start that succeeds makes and prints it.
    const ownerKeys = new Map<string, string>();
    for (const site of sites) {
      const key = await ensureOwnerKey(db, site, await ownerKeyHashFromInit(stateDir, site.name));
      if (key) ownerKeys.set(site.name, key);
    }
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
    if (providerToken) {
      const ownerKeyDates: Record<string, string | null> = {};
      for (const site of sites) ownerKeyDates[site.name] = (await ownerKeyCreatedAt(db, site))?.toISOString() ?? null;
      removeProviderFile = await writeProviderFile(stateDir, {
        url: localProviderUrl(host, port),
        pid: process.pid,
        token: providerToken,
        ownerKeys: ownerKeyDates,
      });
    }
    const resumed = await campaigns.resumeUnfinished();
    automations.start();
    feeds = new FeedPoller(db, sites, campaigns, { ...options.feeds, policy: feedPolicy, clock, log: options.campaigns?.log });
    feeds.start();
    await webhooks.start();
    campaigns.startScheduler();
    const pruning = scheduleEventPruning(db, eventRetention, options.log, async () => {
      // the click events of the sites this provider hosts, their revenue kept (each site's conversion window; each
      // automation's own window for its messages, as the owner may have changed it); another site's wait for a
      // provider that hosts it, the only one that knows its window
      const clicks = await pruneCampaignClicks(db, eventRetention, {
        sites: Object.fromEntries(sites.map((site) => [site.hash, conversionWindowOf(site.config)])),
        automations: await automationWindows(db, sites),
      });
      const deleted = await pruneDeliveries(db, deliveryRetention);
      const lines = [
        clicks > 0 ? `pruned ${clicks} campaign click event${clicks === 1 ? '' : 's'} older than ${eventRetention} days, revenue kept` : '',
        deleted > 0 ? `pruned ${deleted} delivery rows of campaigns done more than ${deliveryRetention} days ago` : '',
      ].filter(Boolean);
      return lines.length > 0 ? lines.join('; ') : undefined;
    });
    const urlHost = host.includes(':') ? `[${host}]` : host;
    const running = { app, campaigns, automations, feeds };
    return {
      url: `http://${urlHost}:${port}`,
      port,
      host,
      app,
      db,
      sites,
      storage: options.database ? `PostgreSQL ${redactedDatabaseUrl(options.database)}` : `embedded database ${dataDir}`,
      ownerKeys,
      campaigns,
      automations,
      webhooks,
      feeds,
      resumed,
      async close() {
        // first: from now on the command line opens the database itself instead of asking
        await removeProviderFile().catch(() => undefined);
        await pruning.stop();
        await running.app.close();
        await running.automations.close();
        await running.feeds.close();
        await webhooks.close();
        await running.campaigns.close();
        await closePushConnections();
        await db.close();
      },
    };
  } catch (error) {
    await removeProviderFile().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await campaigns?.close().catch(() => undefined);
    await automations?.close().catch(() => undefined);
    await feeds?.close().catch(() => undefined);
    await webhooks.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw error;
  }
}
