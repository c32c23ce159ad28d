// `push-kit send` and `push-kit campaigns show` say why deliveries failed (issue 30): grouped by reason, with the
// section of the shipped guide that explains a reason the owner can fix. A project folder, its embedded database, one subscriber whose
// push service answers as Apple does to a bad VAPID subject.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.ts';
import { loadSites } from '../../server/sites.ts';
import { generateVapidKeyPair, writeVapidKeyFile } from '../../server/push/vapid-keys.ts';
import { seedProjectDatabase } from '../support/cli-process.ts';
import { startFakePushService, type FakePushService } from '../support/fake-push-service.ts';
import { startProviderHarness } from '../support/provider-harness.ts';
import { pruneDeliveries } from '../../server/campaigns/index.ts';

const CLI = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
let project: string;
let service: FakePushService;
const vapid = generateVapidKeyPair();

beforeAll(async () => {
  service = await startFakePushService();
  project = await mkdtemp(join(tmpdir(), 'pk-send-reasons-'));
  await mkdir(join(project, 'site-configs'));
  await writeFile(
    join(project, 'site-configs', 'letters.json'),
    JSON.stringify({
      hash: 'letters-reasons-1',
      companyName: 'Letters',
      origin: 'https://letters.example',
      serverSyncUrl: 'https://push.letters.example',
      vapidPublicKey: vapid.publicKey,
    }),
  );
  await writeVapidKeyFile(join(project, '.push-kit', 'keys', 'letters.json'), vapid);
  await seedProjectDatabase(project);
  const db = await openDatabase({ dataDir: join(project, '.push-kit', 'db') });
  const { sites } = await loadSites([join(project, 'site-configs', 'letters.json')], join(project, 'dist'));
  const harness = await startProviderHarness({ via: 'createApp', db, sites, service, vapid, ownerKeys: false });
  await harness.subscribe({ path: '/reasons/apple' });
  await harness.close();
  await db.close();
  service.answer('/reasons/apple', { status: 403, body: '{"reason":"BadJwtToken"}' });
}, 60_000);
afterAll(async () => {
  await service.close();
  await rm(project, { recursive: true, force: true });
});

function runCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: service.certPath, PUSHKIT_PUSH_SERVICES: service.origin, NO_COLOR: '1' };
    const child = spawn('node', [CLI, ...args], { cwd: project, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

it('send and campaigns show print the failures by reason and where the docs say how to fix it', async () => {
  // the command may talk to no provider: it names the guide shipped in the package and its section
  const guide = fileURLToPath(new URL('../../docs/delivery-failures.md', import.meta.url));
  expect(await readFile(guide, 'utf8')).toContain('\n## VAPID subject: BadJwtToken\n');
  const link = `${guide}, section "VAPID subject: BadJwtToken"`;
  const sent = await runCli(['send', '--site', 'letters', '--title', 'Hello', '--body', 'Why not?']);
  expect(sent.stdout, sent.stderr).toContain('sent to 1: 0 delivered, 0 expired, 1 failed');
  expect(sent.stdout).toContain('failures by reason:\n  403 BadJwtToken from 127.0.0.1: 1\n');
  expect(sent.stdout).toContain(`how to fix it: ${link}`);
  expect(sent.status).toBe(1);
  const campaignId = /campaign (\d+):/.exec(sent.stdout)![1]!;
  // shown once its delivery rows are pruned after the reporting window (here: none), as the provider does daily
  const db = await openDatabase({ dataDir: join(project, '.push-kit', 'db') });
  try {
    expect(await pruneDeliveries(db, 0)).toBe(1);
  } finally {
    await db.close();
  }

  const shown = await runCli(['campaigns', 'show', campaignId, '--site', 'letters']);
  expect(shown.status, shown.stderr).toBe(0);
  expect(shown.stdout).toContain('1 failed');
  expect(shown.stdout).toContain('details pruned after 0 days');
  expect(shown.stdout).toContain('  403 BadJwtToken from 127.0.0.1: 1');
  expect(shown.stdout).toContain(link);
}, 120_000);
