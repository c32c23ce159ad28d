// The one provider set-up of the integration tests: a provider (the whole one, `startProvider`, listening with
// its campaign queue and automation runner; or the fastify app alone over a database, `createApp`, as route tests
// use it) with a local fake push service and a manual clock; a visitor subscribed through the real sync call;
// owner API calls with the site's owner key; and what the push service received, decrypted.
//
//   const harness = useProviderHarness({ via: 'createApp' });   // beforeAll starts it, afterAll closes it
//   const { id, path } = await harness.subscribe();
//   await harness.owner('POST', '/campaigns', { title: 'T', body: 'B' });
//   harness.messages(path)
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { createApp, type CreateAppOptions } from '../../server/http/app.ts';
import type { Database } from '../../server/db/database.ts';
import { ensureOwnerKey } from '../../server/http/owner-keys.ts';
import { closePushConnections } from '../../server/push/send.ts';
import { generateVapidKeyPair, writeVapidKeyFile, type VapidKeyPair } from '../../server/push/vapid-keys.ts';
import type { HostedSite } from '../../server/sites.ts';
import { startProvider, type Provider, type StartProviderOptions } from '../../server/start-provider.ts';
import { embeddedDatabaseDir, vapidKeyFile } from '../../server/state-paths.ts';
import type { DeclarativePushMessage } from '../../contract/push-payload.ts';
import {
  createSubscriberKeys,
  decryptPushBody,
  startFakePushService,
  type FakePushService,
  type RecordedPush,
  type SubscriberKeys,
} from './fake-push-service.ts';
import { runningClock, type ManualClock } from './manual-clock.ts';
import { seedMigratedDatabase } from './migrated-database.ts';
import { openTempDatabase, tempDir, testSite } from './server.ts';

export interface ProviderHarnessOptions {
  /** `startProvider` (default): the provider as `push-kit serve` runs it; `createApp`: the app over a database. */
  via?: 'startProvider' | 'createApp';
  /** The hosted sites; default `[testSite()]`. The first is `harness.site`. */
  sites?: HostedSite[];
  /**
   * The sites' VAPID key pair, written to the state folder; with a push service the sites' public key is set to
   * it. Default: a new pair.
   */
  vapid?: VapidKeyPair;
  /** A push service to share (not closed by the harness); `false`: none, the known push services are allowed. */
  service?: FakePushService | false;
  /** The provider's clock; default one that runs with the real time until the test moves it (runningClock). */
  clock?: ManualClock;
  /** The browsers' subscription keys (one pair for every subscriber); default: a new pair. */
  keys?: SubscriberKeys;
  /** Endpoint paths of `subscribe()` are `/<pathPrefix>/<n>`; default `push`. */
  pathPrefix?: string;
  rateLimit?: CreateAppOptions['rateLimit'];
  trustProxy?: CreateAppOptions['trustProxy'];
  /** startProvider: a PostgreSQL URL; default the embedded database in the state folder. */
  database?: string;
  /** startProvider: the state folder (to share it between providers); default a temporary one. */
  stateDir?: string;
  /** startProvider: push service origins allowed beside the fake push service's (one that refuses connections). */
  morePushServices?: string[];
  /** startProvider: the campaign sender's options (the service's certificate and a silent log are given). */
  campaigns?: StartProviderOptions['campaigns'];
  automationPollMs?: number;
  /** startProvider: the webhook settings (a receiver's origin listed, its certificate, `pollMs: 0` to drive it by hand). */
  webhooks?: StartProviderOptions['webhooks'];
  /** startProvider: the feed settings (a local feed server's host listed, `pollMs: 0` to drive it by hand). */
  feeds?: StartProviderOptions['feeds'];
  eventRetentionDays?: StartProviderOptions['eventRetentionDays'];
  /** createApp: the database (not closed by the harness); default an embedded one in a temporary folder. */
  db?: Database;
  /** createApp: false makes no owner keys (a provider started later on the same database makes and prints them). */
  ownerKeys?: boolean;
}

export interface SubscribeOptions {
  /** The endpoint's path on the push service; default `/<pathPrefix>/<n>`. */
  path?: string;
  /** Default: the path without its first slash, other slashes as dashes; `null` sends none. */
  subscriptionId?: string | null;
  /** Default: the first site's hash. */
  hash?: string;
  /** More fields of the insert: a time zone, a uuid, a language. */
  fields?: Record<string, string>;
  /** The Origin header of the call; default none. */
  origin?: string;
}

export interface Subscribed {
  id: string;
  secret: string;
  /** The endpoint's path on the push service. */
  path: string;
  endpoint: string;
}

export type OwnerMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** The set-up one integration file shares; fields are readable once `start()` has resolved. */
export class ProviderHarness {
  readonly clock: ManualClock;
  readonly vapid: VapidKeyPair;
  readonly keys: SubscriberKeys;
  /** The provider of `via: 'startProvider'` (undefined with createApp). */
  provider: Provider | undefined;
  private started: { app: FastifyInstance; db: Database } | undefined;
  private ownService: FakePushService | undefined;
  private ownState: { path: string; remove: () => Promise<void> } | undefined;
  private ownDatabase: (() => Promise<void>) | undefined;
  private readonly ownerKeys = new Map<string, string>();
  private readonly options: ProviderHarnessOptions;
  private hostedSites: HostedSite[] | undefined;

  constructor(options: ProviderHarnessOptions = {}) {
    this.options = options;
    this.clock = options.clock ?? runningClock();
    this.vapid = options.vapid ?? generateVapidKeyPair();
    this.keys = options.keys ?? createSubscriberKeys();
  }

  get app(): FastifyInstance {
    return this.running().app;
  }
  get db(): Database {
    return this.running().db;
  }
  get sites(): HostedSite[] {
    if (!this.hostedSites) throw new Error('the provider harness has not started');
    return this.hostedSites;
  }
  get site(): HostedSite {
    return this.sites[0]!;
  }
  get service(): FakePushService {
    const service = this.options.service === undefined ? this.ownService : this.options.service;
    if (!service) throw new Error('this provider harness has no push service');
    return service;
  }
  /** The state folder (a temporary one unless `stateDir` is given). */
  get stateDir(): string {
    const dir = this.options.stateDir ?? this.ownState?.path;
    if (!dir) throw new Error('this provider harness has no state folder');
    return dir;
  }
  /** The provider's campaign queue (startProvider). */
  get campaigns(): Provider['campaigns'] {
    return this.runningProvider().campaigns;
  }
  /** The provider's webhook dispatcher (startProvider). */
  get webhooks(): Provider['webhooks'] {
    return this.runningProvider().webhooks;
  }
  /** The provider's feed poller (startProvider). */
  get feeds(): Provider['feeds'] {
    return this.runningProvider().feeds;
  }
  /** The provider's automation runner (startProvider). */
  get automations(): Provider['automations'] {
    return this.runningProvider().automations;
  }
  /** The owner key of the first site. */
  get ownerKey(): string {
    return this.ownerKeyOf(this.site.name);
  }

  ownerKeyOf(siteName: string): string {
    const key = this.ownerKeys.get(siteName);
    if (!key) throw new Error(`no owner key for site ${siteName}`);
    return key;
  }

  /** Starts the push service, the state folder or database, and the provider; again after `stop()`. */
  async start(): Promise<this> {
    const { options } = this;
    if (options.service === undefined && !this.ownService) this.ownService = await startFakePushService();
    const service = options.service === false ? undefined : this.service;
    if (!this.hostedSites) {
      const sites = options.sites ?? [testSite()];
      this.hostedSites = service
        ? sites.map((site) => ({ ...site, config: { ...site.config, vapidPublicKey: this.vapid.publicKey } }))
        : sites;
    }
    const sites = this.hostedSites;
    if ((options.via ?? 'startProvider') === 'startProvider') {
      if (!options.stateDir && !this.ownState) {
        this.ownState = await tempDir('pushkit-harness-');
        for (const site of sites) await writeVapidKeyFile(vapidKeyFile(this.ownState.path, site.name), this.vapid);
        // the embedded database of its own state folder starts migrated (migrated-database.ts)
        if (!options.database) await seedMigratedDatabase(embeddedDatabaseDir(this.ownState.path));
      }
      this.provider = await startProvider({
        sites,
        stateDir: this.stateDir,
        database: options.database,
        rateLimit: options.rateLimit,
        trustProxy: options.trustProxy,
        pushServices: service ? [service.origin, ...(options.morePushServices ?? [])] : undefined,
        campaigns: { ...(service ? { ca: service.ca } : {}), log: () => undefined, ...options.campaigns },
        clock: this.clock,
        automationPollMs: options.automationPollMs,
        webhooks: options.webhooks,
        feeds: options.feeds,
        eventRetentionDays: options.eventRetentionDays,
      });
      this.started = { app: this.provider.app, db: this.provider.db };
      for (const [name, key] of this.provider.ownerKeys) this.ownerKeys.set(name, key);
    } else {
      // routes that write key files (the key ring's, an import's key) write them in a state folder of the test
      if (!options.stateDir && !this.ownState) this.ownState = await tempDir('pushkit-harness-');
      let db = options.db;
      if (!db) {
        const temp = await openTempDatabase();
        db = temp.db;
        this.ownDatabase = temp.cleanup;
      }
      const app = await createApp({
        sites,
        db,
        rateLimit: options.rateLimit,
        trustProxy: options.trustProxy,
        clock: this.clock,
        stateDir: this.stateDir,
        ...(service ? { pushServices: service.pushServices } : {}),
      });
      this.started = { app, db };
      for (const site of options.ownerKeys === false ? [] : sites) {
        const key = await ensureOwnerKey(db, site);
        if (key) this.ownerKeys.set(site.name, key);
      }
    }
    return this;
  }

  /** Stops the provider (or app) but keeps the push service, the state folder and the database: `start()` again. */
  async stop(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    if (this.provider) {
      const provider = this.provider;
      this.provider = undefined;
      await provider.close();
    } else if (started) {
      await closePushConnections();
      await started.app.close();
    }
  }

  /** Stops everything it started: the provider, its push service, database and state folder. */
  async close(): Promise<void> {
    await this.stop();
    await closePushConnections();
    await this.ownDatabase?.();
    this.ownDatabase = undefined;
    await this.ownService?.close();
    this.ownService = undefined;
    await this.ownState?.remove();
    this.ownState = undefined;
  }

  /** A visitor subscribed through the real sync call (`insert`), on its own push service path. */
  async subscribe(options: SubscribeOptions = {}): Promise<Subscribed> {
    pathCount += 1;
    const path = options.path ?? `/${this.options.pathPrefix ?? 'push'}/${pathCount}`;
    const endpoint = this.options.service === false ? `https://fcm.googleapis.com/fcm/send${path}` : `${this.service.origin}${path}`;
    const subscriptionId = options.subscriptionId === undefined ? path.slice(1).replace(/\//g, '-') : options.subscriptionId;
    const form: Record<string, string> = {
      hash: options.hash ?? this.site.hash,
      action: 'insert',
      subscription: JSON.stringify({ endpoint, expirationTime: null, keys: { p256dh: this.keys.p256dh, auth: this.keys.auth } }),
      ...(subscriptionId === null ? {} : { subscriptionId }),
      ...options.fields,
    };
    const reply = await this.app.inject({
      method: 'POST',
      url: '/syncSubscriptionAction.php',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(options.origin ? { origin: options.origin } : {}) },
      payload: new URLSearchParams(form).toString(),
    });
    expect(reply.statusCode, reply.body).toBe(200);
    const body = reply.json() as { status: string; subscriberId: string; subscriberSecret: string };
    expect(body.status, reply.body).toBe('success');
    return { id: body.subscriberId, secret: body.subscriberSecret, path, endpoint };
  }

  /**
   * An owner API call with the first site's owner key (or `key`; `null`: none): `url` is the site's
   * (`/campaigns` is `/api/v1/sites/<site>/campaigns`) unless it starts with `/api/`; a body goes as JSON.
   */
  owner(method: OwnerMethod, url: string, body?: unknown, key: string | null = this.ownerKey): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = {};
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.app.inject({
      method,
      url: url.startsWith('/api/') ? url : `/api/v1/sites/${this.site.name}${url}`,
      headers,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  }

  /** What the push service received, in order; only at `path` when given. */
  deliveries(path?: string): RecordedPush[] {
    return this.service.requests.filter((request) => path === undefined || request.path === path);
  }

  /** How many pushes the push service received at `path`. */
  received(path: string): number {
    return this.deliveries(path).length;
  }

  /** The received pushes decrypted with the subscribers' keys, as a browser reads them. */
  messages(path?: string): DeclarativePushMessage[] {
    return this.deliveries(path).map((push) => this.messageOf(push));
  }

  messageOf(push: RecordedPush): DeclarativePushMessage {
    return JSON.parse(decryptPushBody(push.body, this.keys).toString('utf8')) as DeclarativePushMessage;
  }

  private runningProvider(): Provider {
    if (!this.provider) throw new Error('the provider harness runs no provider (via startProvider, started)');
    return this.provider;
  }

  private running(): { app: FastifyInstance; db: Database } {
    if (!this.started) throw new Error('the provider harness is not running (start it in beforeAll)');
    return this.started;
  }
}

/** Endpoint paths are unique within a test file, whichever harness subscribes. */
let pathCount = 0;

export function startProviderHarness(options: ProviderHarnessOptions = {}): Promise<ProviderHarness> {
  return new ProviderHarness(options).start();
}

/** One harness for the file (or describe block): started in beforeAll, closed in afterAll. */
export function useProviderHarness(options: ProviderHarnessOptions = {}): ProviderHarness {
  const harness = new ProviderHarness(options);
  beforeAll(async () => {
    await harness.start();
  });
  afterAll(async () => {
    await harness.close();
  });
  return harness;
}
