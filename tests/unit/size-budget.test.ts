// The size budget of push.js, measured on real configs with the real build: every byte is paid for on every
// page view of a customer's site. Issue budgets: calligraphy at most 10 KB gzip with the whole lifecycle,
// everything-on at most 12 KB gzip.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSite } from '../../cli/emit/build-site.ts';

const out = await mkdtemp(join(tmpdir(), 'pk-size-budget-'));
afterAll(() => rm(out, { recursive: true, force: true }));

async function pushJsGzip(configFile: string): Promise<number> {
  const built = await buildSite(configFile, out);
  if (!built.ok) throw new Error(JSON.stringify(built.problems));
  return built.files.find((file) => file.path === 'push.js')!.gzip;
}

describe('push.js size budget (gzip)', () => {
  it('calligraphy: at most 10 KB', async () => {
    expect(await pushJsGzip('site-configs/calligraphy.json')).toBeLessThanOrEqual(10 * 1024);
  });

  it('everything on: at most 12 KB', async () => {
    expect(await pushJsGzip('tests/fixtures/configs/everything.json')).toBeLessThanOrEqual(12 * 1024);
  });

  it('a minimal site gets less code than an everything-on site', async () => {
    expect(await pushJsGzip('tests/fixtures/configs/minimal.json')).toBeLessThan(await pushJsGzip('tests/fixtures/configs/everything.json'));
  });
});
