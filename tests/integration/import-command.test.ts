// `push-kit import` as a site owner runs it in a project folder (issue 29): the previous service's subscribers and
// its VAPID key pair (--vapid-key). A dry run writes nothing (no subscriber, no key file); the import stores the
// good rows and puts the key on the site's ring; then every push to an imported subscriber is signed with that
// key, the one its subscription was made with, not the site's own.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.ts';
import { vapidKeyId } from '../../server/keys/index.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { loadSites } from '../../server/sites.ts';
import {
  createSubscriberKeys,
  startFakePushService,
  verifyVapidAuthorization,
  type FakePushService,
} from '../support/fake-push-service.ts';
import { seedProjectDatabase } from '../support/cli-process.ts';
import { startProviderHarness } from '../support/provider-harness.ts';

const CLI = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
const CLI_RUNS_TIMEOUT_MS = 120_000;
/** The site's own key (B) and the previous service's (A), which made the subscriptions of the file. */
const siteKey = generateVapidKeyPair();
const previousKey = generateVapidKeyPair();
const keys = createSubscriberKeys();
let project: string;
let service: FakePushService;
const paths = ['/moved/1', '/moved/2', '/moved/3'];
/** A row exported later, imported while the provider runs (it holds the embedded database): through its owner API. */
const latePath = '/moved/late';

beforeAll(async () => {
  service = await startFakePushService();
  project = await mkdtemp(join(tmpdir(), 'pk-import-'));
  await mkdir(join(project, 'site-configs'));
  await writeFile(
    join(project, 'site-configs', 'letters.json'),
    JSON.stringify({
      hash: 'letters-import-01',
      companyName: 'Letters',
      origin: 'https://letters.example',
      serverSyncUrl: 'https://push.letters.example',
      vapidPublicKey: siteKey.publicKey,
    }),
  );
  await writeVapidKeyFile(join(project, '.push-kit', 'keys', 'letters.json'), siteKey);
  await seedProjectDatabase(project);
  await writeFile(join(project, 'previous-key.json'), JSON.stringify(previousKey));
  const rows = paths.map((path) => `${service.origin}${path},${keys.p256dh},${keys.auth}`);
  await writeFile(join(project, 'late.ndjson'), `${JSON.stringify({ endpoint: `${service.origin}${latePath}`, keys })}\n`);
  await writeFile(
    join(project, 'subscribers.csv'),
    ['endpoint,p256dh,auth', ...rows, `${service.origin}/moved/4,${keys.p256dh},tooshort`, ''].join('\n'),
  );
});
afterAll(async () => {
  await service?.close();
  await rm(project, { recursive: true, force: true });
});

function runCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, PUSHKIT_PUSH_SERVICES: service.origin, NO_COLOR: '1' };
    const child = spawn('node', [CLI, ...args], { cwd: project, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

async function storedSubscribers(): Promise<{ endpoint: string; vapid_key_id: string | null }[]> {
  const db = await openDatabase({ dataDir: join(project, '.push-kit', 'db') });
  try {
    return (
      await db.query<{ endpoint: string; vapid_key_id: string | null }>('SELECT endpoint, vapid_key_id FROM subscribers ORDER BY endpoint')
    ).rows;
  } finally {
    await db.close();
  }
}

it(
  'a dry run prints the counts and the bad line and writes nothing; the import signs each push with the imported key',
  async () => {
    const args = ['import', '--site', 'letters', '--vapid-key', 'previous-key.json', 'subscribers.csv'];
    const dry = await runCli([...args, '--dry-run']);
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(1);
    expect(dry.stdout).toContain('letters: 4 rows read (csv, ');
    expect(dry.stdout).toContain('3 would be imported, 0 already there, 1 refused');
    expect(dry.stdout).toContain('  line 5: auth: must be 16 bytes, not 6');
    expect(dry.stdout).toContain('dry run: nothing was written');
    expect(await storedSubscribers()).toEqual([]);
    expect(existsSync(join(project, '.push-kit', 'keys', 'letters.legacy'))).toBe(false);

    const run = await runCli(args);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    const id = vapidKeyId(previousKey.publicKey);
    expect(run.stdout).toContain(`--vapid-key: the key ${id} is on the key ring of letters (a legacy key)`);
    expect(run.stdout).toContain('3 imported, 0 already there, 1 refused');
    expect((await storedSubscribers()).map((row) => row.vapid_key_id)).toEqual([id, id, id]);

    // the provider of this folder holds its database: a later file goes through its owner API, streamed
    const { sites } = await loadSites([join(project, 'site-configs', 'letters.json')], join(project, 'dist'));
    const harness = await startProviderHarness({ sites, service, keys, vapid: siteKey, stateDir: join(project, '.push-kit') });
    try {
      const late = await runCli([...args.slice(0, -1), '--provider', harness.provider!.url, '--key', harness.ownerKey, 'late.ndjson']);
      expect(late.stderr).toBe('');
      expect(late.stdout).toContain('letters: 1 rows read (ndjson, ');
      expect(late.stdout).toContain('1 imported, 0 already there, 0 refused');
      expect(late.status).toBe(0);
      paths.push(latePath);

      // a campaign: each message is signed with the key its subscription was made with
      const created = await harness.owner('POST', '/campaigns', { title: 'Still here', body: 'Moved without a prompt' });
      expect(created.statusCode, created.body).toBe(201);
      await expect.poll(() => paths.filter((path) => service.countFor(path) === 1).length, { timeout: 20_000 }).toBe(4);
      for (const path of paths) {
        const authorization = service.requests.find((request) => request.path === path)!.headers.authorization as string;
        expect(() => verifyVapidAuthorization(authorization, previousKey.publicKey)).not.toThrow();
        expect(() => verifyVapidAuthorization(authorization, siteKey.publicKey)).toThrow();
      }
    } finally {
      await harness.close();
    }
  },
  CLI_RUNS_TIMEOUT_MS,
);
