// Debian's Chromium driven by playwright-core, with a persistent profile (the Push API refuses in
// incognito-like contexts) and the offline launch flags of docs/testing.md.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const OFFLINE_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  profileDir: string;
  close(): Promise<void>;
}

export async function launchPersistentChromium(
  extraArgs: string[] = [],
  options: { viewport?: { width: number; height: number }; env?: Record<string, string> } = {},
): Promise<TestBrowser> {
  const profileDir = await mkdtemp(join(tmpdir(), 'push-kit-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...OFFLINE_FLAGS, ...extraArgs],
    viewport: options.viewport ?? { width: 1280, height: 800 },
    env: options.env ? ({ ...process.env, ...options.env } as Record<string, string>) : undefined,
  });
  return {
    context,
    profileDir,
    async close() {
      await context.close().catch(() => {});
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits for every start (a provider, Chromium...) begun side by side, then throws the first failure: each start
 * assigns what it started, and one still under way when another failed would otherwise escape afterAll's close.
 */
export async function allStarted(starts: Promise<unknown>[]): Promise<void> {
  for (const result of await Promise.allSettled(starts)) if (result.status === 'rejected') throw result.reason;
}
