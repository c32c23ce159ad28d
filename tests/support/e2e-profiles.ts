// The e2e stage's global set-up: one folder for every Chromium profile of the run (browser.ts), removed when the
// run ends. A worker's kept browsers outlive its last file (they end when its pipe to them closes, writing to their
// profiles as they go), which gives no chance to remove their profiles from inside the worker.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether a process still runs with a profile in `folder` (`--user-data-dir=<folder>/...`). */
function profileInUse(folder: string): boolean {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(folder)) return true;
    } catch {
      // the process ended while it was read
    }
  }
  return false;
}

export default async function setup(): Promise<() => Promise<void>> {
  const folder = await mkdtemp(join(tmpdir(), 'push-kit-e2e-profiles-'));
  process.env.PUSHKIT_E2E_PROFILES = folder;
  return async () => {
    // up to 15 s for the last browsers to end
    for (let attempt = 0; attempt < 30 && profileInUse(folder); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 500));
    await rm(folder, { recursive: true, force: true, maxRetries: 3, retryDelay: 200 });
  };
}
