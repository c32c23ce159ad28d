// `push-kit send` as a site owner runs it, in a project folder: straight from the embedded database, and
// through a running provider (which holds that database) with the owner key.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.ts';
import { loadSites } from '../../server/sites.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { seedProjectDatabase } from '../support/cli-process.ts';
import { timeoutForProcesses, whenReady } from '../support/process-ready.ts';
import { createSubscriberKeys, decryptPushBody, startFakePushService, type FakePushService } from '../support/fake-push-service.ts';
import { retryOnPortInUse } from '../support/port-retry.ts';
import { freePort } from '../support/ports.ts';
import { startProviderHarness } from '../support/provider-harness.ts';

const CLI = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
/**
 * Several tests run the CLI ten times or so, one after the other: each run starts Node, tsx and often the
 * embedded database (1 to 3 s on a busy 2-core machine, 8 to 10 s at load 16, where 120 s per test was nearly met).
 */
const CLI_RUNS_TIMEOUT_MS = timeoutForProcesses(10);
const ORIGIN = 'https://letters.example';
let project: string;
let service: FakePushService;
let providerPort: number;
const vapid = generateVapidKeyPair();
const keys = createSubscriberKeys();
/** The campaign `--at` scheduled (2099-01-01T09:00:00Z), which `campaigns` lists and cancels. */
let scheduledId: string;

function syncForm(path: string): string {
  return new URLSearchParams({
    hash: 'letters-send-01',
    action: 'insert',
    subscription: JSON.stringify({ endpoint: `${service.origin}${path}`, keys: { p256dh: keys.p256dh, auth: keys.auth } }),
  }).toString();
}

/** The site's config, its sync URL on the port the provider below is to listen on. */
function writeSiteConfig(): Promise<void> {
  return writeFile(
    join(project, 'site-configs', 'letters.json'),
    JSON.stringify({
      hash: 'letters-send-01',
      companyName: 'Letters',
      origin: ORIGIN,
      serverSyncUrl: `http://127.0.0.1:${providerPort}`,
      vapidPublicKey: vapid.publicKey,
    }),
  );
}

beforeAll(async () => {
  service = await startFakePushService();
  project = await mkdtemp(join(tmpdir(), 'pk-send-'));
  providerPort = await freePort();
  await mkdir(join(project, 'site-configs'));
  await writeSiteConfig();
  await writeVapidKeyFile(join(project, '.push-kit', 'keys', 'letters.json'), vapid);
  // One subscriber, stored through the real sync endpoint into the project's embedded database.
  await seedProjectDatabase(project);
  const db = await openDatabase({ dataDir: join(project, '.push-kit', 'db') });
  const { sites } = await loadSites([join(project, 'site-configs', 'letters.json')], join(project, 'dist'));
  // no owner key yet: the provider started below makes it and prints it once
  const harness = await startProviderHarness({ via: 'createApp', db, sites, service, keys, vapid, ownerKeys: false });
  await harness.subscribe({ path: '/send/direct', subscriptionId: null });
  await harness.close();
  await db.close();
});
afterAll(async () => {
  await service.close();
  await rm(project, { recursive: true, force: true });
});

const env = () => ({ ...process.env, NODE_EXTRA_CA_CERTS: service.certPath, PUSHKIT_PUSH_SERVICES: service.origin, NO_COLOR: '1' });

/** Runs the CLI without blocking this process, which hosts the fake push service the CLI sends to. */
function runCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('node', [CLI, ...args], { cwd: project, env: env() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('push-kit send', { timeout: CLI_RUNS_TIMEOUT_MS }, () => {
  it('sends from the embedded database and prints the final counts', async () => {
    const run = await runCli([
      'send',
      '--site',
      'letters',
      '--title',
      'New letters',
      '--body',
      'Fresh ink',
      '--topic',
      'new-letters',
      '--ttl',
      '600',
    ]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('sent to 1: 1 delivered, 0 expired, 0 failed');
    expect(run.status).toBe(0);
    const request = service.requests.find((entry) => entry.path === '/send/direct')!;
    expect([request.headers.topic, request.headers.ttl]).toEqual(['new-letters', '600']);
    expect(JSON.parse(decryptPushBody(request.body, keys).toString('utf8'))).toMatchObject({
      web_push: 8030,
      notification: { title: 'New letters', body: 'Fresh ink' },
    });
    // a send straight on the database is in the site's audit log, as the command line's (docs/members.md)
    const db = await openDatabase({ dataDir: join(project, '.push-kit', 'db') });
    try {
      const { rows } = await db.query('SELECT member_id, member_name, action FROM audit_log');
      expect(rows).toEqual([{ member_id: null, member_name: 'push-kit command line', action: 'campaign.create' }]);
    } finally {
      await db.close();
    }
  });

  it('--at stores the campaign for the provider to send at that time and sends nothing now', async () => {
    const before = service.requests.length;
    const run = await runCli(['send', '--site', 'letters', '--title', 'Later', '--body', 'at nine', '--at', '2099-01-01T09:00:00Z']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    scheduledId = /^campaign (\d+): 1 recipient$/m.exec(run.stdout)![1]!;
    expect(run.stdout).toContain('scheduled: the provider (push-kit serve) sends it from 2099-01-01T09:00:00.000Z');
    expect(service.requests.length).toBe(before);
  });

  it('push-kit campaigns lists the scheduled campaign; campaigns cancel withdraws it, once', async () => {
    const id = scheduledId;
    const listed = await runCli(['campaigns', '--site', 'letters']);
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toMatch(
      new RegExp(
        `^ *${id}  scheduled  "Later"  1 recipients, 0 delivered, 0 shown, 0 clicked, 1 waiting \\(next 2099-01-01T09:00:00.000Z\\)$`,
        'm',
      ),
    );

    const cancel = await runCli(['campaigns', 'cancel', id, '--site', 'letters']);
    expect(cancel.stderr).toBe('');
    expect(cancel.stdout).toContain(`campaign ${id} cancelled: 1 waiting delivery withdrawn`);
    expect((await runCli(['campaigns', '--site', 'letters'])).stdout).toMatch(
      new RegExp(`^ *${id}  cancelled  "Later"  0 recipients, 0 delivered`, 'm'),
    );
    const again = await runCli(['campaigns', 'cancel', id, '--site', 'letters']);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`campaign ${id} is cancelled; only a scheduled or sending campaign can be cancelled`);
    const db = await openDatabase({ dataDir: join(project, '.push-kit', 'db') });
    try {
      const { rows } = await db.query("SELECT member_name, target FROM audit_log WHERE action = 'campaign.cancel'");
      expect(rows).toEqual([{ member_name: 'push-kit command line', target: id }]);
    } finally {
      await db.close();
    }
    // (only the first opens the database; the others are refused before)
    const [unknown, notAnId, noId, badLimit] = await Promise.all([
      runCli(['campaigns', 'cancel', '987654', '--site', 'letters']),
      runCli(['campaigns', 'cancel', '1;drop', '--site', 'letters']),
      runCli(['campaigns', 'cancel', '--site', 'letters']),
      runCli(['campaigns', '--site', 'letters', '--limit', '0']),
    ]);
    expect(unknown.stderr).toContain('no campaign 987654 on site letters');
    expect(notAnId.stderr).toContain('not a campaign id (digits): 1;drop');
    expect(noId.stderr).toContain('cancel needs the campaign id');
    expect(badLimit.stderr).toContain('--limit: must be a whole number from 1 to 100');
  });

  it('refuses a bad --at, --local-time or --app-badge, naming the option', async () => {
    const refused = async (option: string, value: string) =>
      runCli(['send', '--site', 'letters', '--title', 't', '--body', 'b', option, value]);
    // each refused before the database is opened: the runs go side by side
    const [at, localTime, appBadge, topic, notJson, oneVariant, badVariant, ttl] = await Promise.all([
      refused('--at', 'tomorrow'),
      refused('--local-time', '9am'),
      refused('--app-badge', 'many'),
      refused('--topic', 'new letters'),
      refused('--variant', 'B'),
      refused('--variant', '{"title":"B"}'),
      runCli([
        'send',
        '--site',
        'letters',
        '--title',
        't',
        '--body',
        'b',
        '--variant',
        '{}',
        '--variant',
        '{"url":"javascript:x"}',
        '--test-fraction',
        '0.5',
        '--winner-after',
        '60',
      ]),
      refused('--ttl', 'soon'),
    ]);
    expect(at.status).toBe(1);
    expect(at.stderr).toContain('--at: must be an ISO 8601 time with its offset');
    expect(localTime.stderr).toContain('--local-time: must be a time of day such as 09:30');
    expect(appBadge.stderr).toContain('--app-badge: must be a whole number');
    expect(topic.stderr).toContain('--topic: must be 1 to 32 letters, digits, "_" or "-" (RFC 8030 topic)');
    expect(notJson.stderr).toContain('--variant: must be JSON such as {"title":"Another title"}, not B');
    expect(oneVariant.stderr).toContain('--variant: an A/B test needs 2 to 4 variants');
    expect(badVariant.stderr).toContain('--variant.1.url: must be an absolute http(s) URL');
    expect(ttl.status).toBe(1);
    expect(ttl.stderr).toContain('--ttl: ');
  });

  it('refuses an unknown site and a bad URL, naming the option', async () => {
    const [unknown, badUrl] = await Promise.all([
      runCli(['send', '--site', 'nope', '--title', 't', '--body', 'b']),
      runCli(['send', '--site', 'letters', '--title', 't', '--body', 'b', '--url', 'javascript:alert(1)']),
    ]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('--site: no valid site config named "nope" (sites: letters)');
    expect(badUrl.status).toBe(1);
    expect(badUrl.stderr).toContain('--url: must be an absolute http(s) URL');
  });

  // serve, then ten commands one after the other
  it('while a provider runs on the database, sends through it with the owner key', { timeout: timeoutForProcesses(11) }, async () => {
    // the port was free when the file started: one taken since fails the start, which is tried again on another
    // (the provider makes the owner key only once it listens)
    let serve = spawn('node', [CLI, 'serve', '--port', String(providerPort)], { cwd: project, env: env() });
    try {
      const { value: ownerKey } = await retryOnPortInUse(async () => {
        if (serve.exitCode !== null) {
          providerPort = await freePort();
          await writeSiteConfig();
          serve = spawn('node', [CLI, 'serve', '--port', String(providerPort)], { cwd: project, env: env() });
        }
        return whenReady(
          serve,
          (output) => (output.includes('Press Ctrl+C') ? /owner key for letters \(shown once[^)]*\): (\S+)/.exec(output)?.[1] : undefined),
          'push-kit serve',
        );
      });
      await fetch(`http://127.0.0.1:${providerPort}/syncSubscriptionAction.php`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: syncForm('/send/through-provider'),
      });
      // no key: the provider's file (.push-kit/provider.json) names it and opens its owner API
      const direct = await runCli(['send', '--site', 'letters', '--title', 't', '--body', 'b']);
      expect(direct.stdout).toContain(`(sent by the provider at http://127.0.0.1:${providerPort})`);
      expect(direct.status).toBe(0);

      const through = await runCli(['send', '--site', 'letters', '--title', 'Through', '--body', 'the provider', '--key', ownerKey]);
      expect(through.stdout).toContain('sent to 2: 2 delivered, 0 expired, 0 failed');
      expect(through.status).toBe(0);
      expect(service.countFor('/send/through-provider')).toBe(2);
      const wrongKey = await runCli(['send', '--site', 'letters', '--title', 't', '--body', 'b', '--key', 'pk_wrong']);
      expect(wrongKey.status).toBe(1);
      expect(wrongKey.stderr).toContain('the provider refused');

      // scheduled, listed and cancelled through the provider that holds the database
      const later = await runCli([
        'send',
        '--site',
        'letters',
        '--title',
        'Later',
        '--body',
        'b',
        '--at',
        '2099-03-01T09:00:00Z',
        '--key',
        ownerKey,
      ]);
      const id = /campaign (\d+):/.exec(later.stdout)![1]!;
      const listed = await runCli(['campaigns', '--site', 'letters', '--key', ownerKey]);
      expect(listed.stdout).toMatch(new RegExp(`^ *${id}  scheduled  "Later"  2 recipients`, 'm'));
      expect((await runCli(['campaigns', '--site', 'letters'])).stdout).toBe(listed.stdout);
      const cancel = await runCli(['campaigns', 'cancel', id, '--site', 'letters', '--key', ownerKey]);
      expect(cancel.stdout).toContain(`campaign ${id} cancelled: 2 waiting deliveries withdrawn`);
      const refused = await runCli(['campaigns', 'cancel', id, '--site', 'letters', '--key', ownerKey]);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(
        `the provider refused: id: campaign ${id} is cancelled; only a scheduled or sending campaign can be cancelled`,
      );
      expect((await runCli(['campaigns', '--site', 'letters', '--key', 'pk_wrong'])).stderr).toContain('the provider refused');
    } finally {
      serve.kill('SIGTERM');
      if (serve.exitCode === null && serve.signalCode === null) await new Promise((resolve) => serve.once('exit', resolve));
    }
  });

  it('--texts sends texts per language from a JSON file, and refuses a missing or malformed one naming --texts', async () => {
    const file = join(project, 'texts.json');
    await writeFile(file, JSON.stringify({ de: { title: 'Neue Briefe', body: 'Frische Tinte' } }));
    const run = await runCli(['send', '--site', 'letters', '--title', 'Texts', '--body', 'Default', '--texts', file]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const db = await openDatabase({ dataDir: join(project, '.push-kit', 'db') });
    try {
      const { rows } = await db.query(`SELECT texts FROM campaigns WHERE title = 'Texts'`);
      expect(rows).toEqual([{ texts: { de: { title: 'Neue Briefe', body: 'Frische Tinte' } } }]);
    } finally {
      await db.close();
    }
    await writeFile(file, JSON.stringify({ German: { title: 'T', body: 'B' } }));
    const [missing, badTag] = await Promise.all([
      runCli(['send', '--site', 'letters', '--title', 'T', '--body', 'B', '--texts', join(project, 'none.json')]),
      runCli(['send', '--site', 'letters', '--title', 'T', '--body', 'B', '--texts', file]),
    ]);
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/--texts.*readable JSON file \(ENOENT/);
    expect(badTag.status).not.toBe(0);
    expect(badTag.stderr).toMatch(/--texts\.German.*language tag such as de or fr-CA/);
  });

  it('--deliver-at best-hour sends the held-out share now and leaves the rest for their best hour', async () => {
    // the site's one click, half a day's hours away: its best hour is still to come today or tomorrow
    const db = await openDatabase({ dataDir: join(project, '.push-kit', 'db') });
    try {
      await db.query(
        `INSERT INTO events (site_hash, subscriber_id, kind, created_at)
         SELECT 'letters-send-01', id, 'clicked', now() - interval '12 hours' FROM subscribers WHERE status = 'subscribed' LIMIT 1`,
      );
    } finally {
      await db.close();
    }
    const options = ['send', '--site', 'letters', '--title', 'Best hour', '--body', 'b', '--best-hour-holdout', '0.4'];
    const run = await runCli([...options, '--deliver-at', 'best-hour']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const recipients = Number(/campaign \d+: (\d+) recipients?/.exec(run.stdout)![1]);
    const held = Math.round(recipients * 0.4); // at least one waits, whatever the audience
    const rest = new RegExp(
      `the held-out share goes now, the other ${recipients - held} at their best hour by (\\S+) \\(sent by push-kit serve\\)`,
    );
    expect(run.stdout).toMatch(rest);
    expect(Date.parse(rest.exec(run.stdout)![1]!)).toBeGreaterThan(Date.now() + 3_600_000);
    expect(run.stdout).toContain(`sent to ${recipients}: ${held} delivered, 0 expired, 0 failed`);
    const refused = await runCli([...options, '--deliver-at', 'tonight']);
    expect([refused.status, refused.stderr]).toEqual([1, expect.stringContaining('--deliver-at: must be "best-hour"')]);
  });
});
