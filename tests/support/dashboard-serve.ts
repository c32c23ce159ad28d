// The dashboard e2e files' provider: `push-kit serve` spawned as an owner runs it, in a project folder of its own
// (its embedded database seeded in this process before the start), on a free port that the site configs name (a
// start that loses the port to another process is made again on another), with the fake HTTPS push service as its
// only push service; and the owner's way in: the dashboard page, then the sign-in with an owner key.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { embeddedDatabaseDir, STATE_DIR } from '../../server/state-paths.ts';
import { startFakePushService, type FakePushService } from './fake-push-service.ts';
import { seedMigratedDatabase } from './migrated-database.ts';
import { retryOnPortInUse } from './port-retry.ts';
import { START_DEADLINE_MS, whenReady } from './process-ready.ts';
import { freePort } from './ports.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** Where the dashboard files put their screenshots. */
export const DASHBOARD_SHOTS = join(REPO, 'tests/artifacts/dashboard');

export interface DashboardProject {
  /** The project folder: site-configs/ and .push-kit/. */
  work: string;
  /** Its state folder (.push-kit/): VAPID keys, the embedded database (.push-kit/db). */
  stateDir: string;
  pushService: FakePushService;
  /** The running provider's URL (http://127.0.0.1:<port>), once serve has resolved. */
  url: string;
  /** Everything the provider has printed so far. */
  output: () => string;
  /**
   * Starts `push-kit serve --sites site-configs/*.json`, with site-configs/<name>.json written from
   * configs(providerUrl) for the port it is given; resolves the URL once it says "Press Ctrl+C to stop.".
   */
  serve: (configs: (providerUrl: string) => Record<string, object>) => Promise<string>;
  /** Stops the provider (SIGTERM, awaited) and the push service and removes the folder. */
  close: () => Promise<void>;
}

/** A dashboard file's set-up (the provider's start, whose deadline is START_DEADLINE_MS, seeding, Chromium, the first page). */
export const SETUP_TIMEOUT_MS = START_DEADLINE_MS + 60_000;

/** A site config for `serve`: its sync URL the provider's own, its icon on its origin. */
export function siteConfig(serverSyncUrl: string, hash: string, companyName: string, origin: string, vapidPublicKey: string) {
  return { hash, companyName, origin, serverSyncUrl, vapidPublicKey, style: { iconUrl: `${origin}/icon.png` } };
}

/** A project folder `push-kit-<name>-*` in the temp folder, with the fake push service started for it. */
export async function createDashboardProject(name: string): Promise<DashboardProject> {
  await mkdir(DASHBOARD_SHOTS, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), `push-kit-${name}-`));
  await mkdir(join(work, 'site-configs'), { recursive: true });
  // the embedded database starts migrated (migrated-database.ts): the files seed it, then serve opens it
  await seedMigratedDatabase(embeddedDatabaseDir(join(work, STATE_DIR)));
  const pushService = await startFakePushService();
  let provider: ChildProcess | undefined;
  let output = () => '';
  const project: DashboardProject = {
    work,
    stateDir: join(work, '.push-kit'),
    pushService,
    url: '',
    output: () => output(),
    serve: async (configs) => {
      await retryOnPortInUse(async () => {
        const port = await freePort();
        project.url = `http://127.0.0.1:${port}`;
        for (const [site, config] of Object.entries(configs(project.url))) {
          await writeFile(join(work, 'site-configs', `${site}.json`), JSON.stringify(config));
        }
        const child = spawn(
          process.execPath,
          [join(REPO, 'bin/push-kit.js'), 'serve', '--port', String(port), '--sites', 'site-configs/*.json', '--dist', 'dist'],
          {
            cwd: work,
            env: { ...process.env, NODE_EXTRA_CA_CERTS: pushService.certPath, PUSHKIT_PUSH_SERVICES: pushService.origin, DATABASE_URL: '' },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        provider = child;
        ({ output } = await whenReady(
          child,
          (printed) => (printed.includes('Press Ctrl+C to stop.') ? true : undefined),
          'push-kit serve',
        ));
      });
      return project.url;
    },
    close: async () => {
      if (provider && provider.exitCode === null && provider.signalCode === null) {
        const exited = new Promise((resolve) => provider!.once('exit', resolve));
        provider.kill('SIGTERM');
        await exited;
      }
      await pushService.close();
      await rm(work, { recursive: true, force: true });
    },
  };
  return project;
}

/** Opens the dashboard; the first visit may wait for its on-demand build (in a checkout run on its sources). */
export async function openDashboard(page: Page, providerUrl: string): Promise<void> {
  await page.goto(`${providerUrl}/dashboard/`, { timeout: START_DEADLINE_MS });
}

/** Signs in on the page the dashboard shows signed out, and waits for the Overview. */
export async function signIn(page: Page, key: string): Promise<void> {
  await page.getByLabel('Owner key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}
