// `push-kit serve` as a user runs it: a real process in a fresh folder, stopped with SIGTERM.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/server.ts';

const BIN = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
const CONFIG = fileURLToPath(new URL('../../site-configs/calligraphy.json', import.meta.url));
const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of removals) await remove();
});

/** Starts serve, waits for its listening line, calls /health, stops it; resolves its output and exit code. */
function serveOnce(cwd: string): Promise<{ output: string; health: unknown; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--sites', CONFIG], {
      cwd,
      env: { ...process.env, DATABASE_URL: '' },
    });
    let output = '';
    let health: unknown;
    let started = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start:\n${output}`));
    }, 30_000);
    const onData = async (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[\d.]+:\d+) /.exec(output);
      if (match && !started && output.includes('Press Ctrl+C to stop.')) {
        started = true;
        health = await (await fetch(`${match[1]}/health`)).json();
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ output, health, code });
    });
  });
}

describe('push-kit serve', () => {
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
  }, 60_000);
});
