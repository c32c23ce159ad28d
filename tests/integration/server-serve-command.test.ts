// `push-kit serve` as a user runs it: a real process in a fresh folder, stopped with SIGTERM.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { timeoutForProcesses, whenReady } from '../support/process-ready.ts';
import { tempDir } from '../support/server.ts';

const BIN = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
const CONFIG = fileURLToPath(new URL('../../site-configs/calligraphy.json', import.meta.url));
const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of removals) await remove();
});

/** Starts serve, waits for its listening line, calls /health, stops it; resolves its output and exit code. */
async function serveOnce(cwd: string): Promise<{ output: string; health: unknown; code: number | null }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--sites', CONFIG], {
    cwd,
    env: { ...process.env, DATABASE_URL: '' },
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const { value: url, output } = await whenReady(
    child,
    (printed) => (printed.includes('Press Ctrl+C to stop.') ? /listening on (http:\/\/[\d.]+:\d+) /.exec(printed)?.[1] : undefined),
    'push-kit serve',
  );
  let health: unknown;
  try {
    health = await (await fetch(`${url}/health`)).json();
  } finally {
    child.kill('SIGTERM');
  }
  const code = await exited;
  return { output: output(), health, code };
}

// serve twice, one after the other: each start may take its deadline
describe('push-kit serve', { timeout: timeoutForProcesses(2) }, () => {
  it('serves the sites on the embedded database in .push-kit/db, prints a new owner key once, and stops on SIGTERM', async () => {
    const dir = await tempDir('pushkit-serve-');
    removals.push(dir.remove);
    const first = await serveOnce(dir.path);
    expect(first.output).toMatch(/^push-kit provider listening on http:\/\/127\.0\.0\.1:\d+ \(embedded database \.push-kit\/db\)$/m);
    expect(first.output).toContain('  site calligraphy: hash calligraphy-demo, origin http://localhost:8080');
    expect(first.output).toMatch(/owner key for calligraphy \(shown once, keep it secret\): pk_[A-Za-z0-9_-]{32}/);
    expect(first.output).toContain('push-kit provider stopping (SIGTERM)');
    expect(first.health).toEqual({ status: 'success', database: 'embedded', sites: 1 });
    expect(first.code).toBe(0);
    expect(existsSync(join(dir.path, '.push-kit', 'db'))).toBe(true);

    const second = await serveOnce(dir.path);
    expect(second.output).not.toContain('owner key');
    expect(second.code).toBe(0);
  });
});
