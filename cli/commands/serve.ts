// `push-kit serve`: the provider server for the hosted site configs, on the embedded database in
// .push-kit/db or on PostgreSQL (--database or DATABASE_URL). Runs until SIGINT / SIGTERM.
import cluster from 'node:cluster';
import { prepareDashboard } from '../../server/dashboard/index.ts';
import { startProvider } from '../../server/start-provider.ts';
import { parseTrustProxy, type TrustProxy } from '../../server/http/trust-proxy.ts';
import { cliError, fromServerError } from '../errors.ts';
import { stopSignal } from '../stop-signal.ts';
import { requireSharedDatabase, runServeCluster, workerCount } from './serve-cluster.ts';

export interface ServeOptions {
  port: string;
  host: string;
  database?: string;
  sites: string[];
  dist: string;
  trustProxy?: string;
  /** Comma-separated push service origins (default: PUSHKIT_PUSH_SERVICES, else the known push services). */
  pushServices?: string;
  /** Days events are kept (default: PUSHKIT_EVENT_RETENTION_DAYS, else 180). */
  eventRetentionDays?: string;
  /** Provider processes sharing the port (node:cluster); more than one needs PostgreSQL. */
  workers?: string;
  /** Milliseconds a client has to send a whole request (default 30000; 0: none). */
  requestTimeoutMs?: string;
  /** Milliseconds a connection may stay silent (default 10000; 0: none). */
  connectionTimeoutMs?: string;
  /** Connections one client address may hold open (default 64; 0: no cap). */
  maxConnectionsPerAddress?: string;
  /** Webhooks may go to http:// on this machine's loopback (default: PUSHKIT_ALLOW_HTTP_WEBHOOKS). */
  allowHttpWebhooks?: boolean;
  /** Comma-separated webhook origins that may resolve to private addresses (default: PUSHKIT_WEBHOOK_PRIVATE_ORIGINS). */
  webhookPrivateOrigins?: string;
  /** Comma-separated hosts whose feeds may be http and resolve to private addresses (default: PUSHKIT_ALLOW_FEED_HOSTS). */
  allowFeedHosts?: string;
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 0 || port > 65535)
    throw cliError('E_ARGUMENT', { option: 'port', rule: `"${value}" is not a port number (0 to 65535)` });
  return port;
}

function countOption(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw cliError('E_ARGUMENT', { option, rule: `"${value}" is not a whole number (0 turns the limit off)` });
  return Number(value);
}

function trustProxyOption(value: string | undefined): TrustProxy | undefined {
  if (value === undefined) return undefined;
  const parsed = parseTrustProxy(value);
  if (parsed === null) {
    throw cliError('E_ARGUMENT', {
      option: 'trust-proxy',
      rule: `"${value}" is not true, false or a list of proxy addresses (127.0.0.1,10.0.0.0/8)`,
    });
  }
  return parsed;
}

export async function runServe(options: ServeOptions): Promise<number> {
  const port = portNumber(options.port);
  const trustProxy = trustProxyOption(options.trustProxy ?? process.env.PUSHKIT_TRUST_PROXY);
  const database = options.database ?? (process.env.DATABASE_URL || undefined);
  const requestTimeoutMs = countOption('request-timeout-ms', options.requestTimeoutMs);
  const connectionTimeoutMs = countOption('connection-timeout-ms', options.connectionTimeoutMs);
  const maxConnectionsPerAddress = countOption('max-connections-per-address', options.maxConnectionsPerAddress);
  const workers = workerCount(options.workers);
  requireSharedDatabase(workers, database);
  // Handlers first: a SIGTERM sent as soon as the ready line is read must stop the provider cleanly.
  const stopped = stopSignal();
  if (workers > 1 && cluster.isPrimary) return runServeCluster(workers, stopped);
  const provider = await startProvider({
    configs: options.sites,
    dist: options.dist,
    onConfigProblem: (line) => console.error(line),
    port,
    host: options.host,
    database,
    trustProxy,
    requestTimeoutMs,
    connectionTimeoutMs,
    maxConnectionsPerAddress,
    pushServices: options.pushServices,
    eventRetentionDays: options.eventRetentionDays,
    webhooks: { allowHttp: options.allowHttpWebhooks, privateOrigins: options.webhookPrivateOrigins },
    feeds: { allowHosts: options.allowFeedHosts },
    log: (line) => console.log(line),
    providerFile: true,
  }).catch(fromServerError);
  // Which worker answered, for an operator checking the balance (and the cluster test): its number, not its pid.
  const workerId = cluster.worker?.id;
  if (workerId !== undefined)
    provider.app.server.prependListener('request', (_request, reply) => reply.setHeader('x-pushkit-worker', String(workerId)));

  console.log(`push-kit provider listening on http://${options.host}:${provider.port} (${provider.storage})`);
  for (const site of provider.sites) {
    console.log(`  site ${site.name}: hash ${site.hash}, origin ${site.config.origin}`);
    const key = provider.ownerKeys.get(site.name);
    if (key) console.log(`  owner key for ${site.name} (shown once, keep it secret): ${key}`);
  }

  const shownHost = ['0.0.0.0', '::'].includes(options.host)
    ? 'localhost'
    : options.host.includes(':')
      ? `[${options.host}]`
      : options.host;
  console.log(`  owner dashboard: http://${shownHost}:${provider.port}/dashboard/`);
  prepareDashboard((line) => console.log(line));

  const { resumed } = provider;
  if (resumed) console.log(`resuming ${resumed} unfinished campaign${resumed === 1 ? '' : 's'}`);
  console.log('Press Ctrl+C to stop.');

  console.log(`push-kit provider stopping (${await stopped})`);
  await provider.close();
  // A cluster worker's channel to the primary would keep it running.
  cluster.worker?.disconnect();
  return 0;
}
