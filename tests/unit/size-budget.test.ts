// The size budget of push.js, measured on real configs with the real build: every byte is paid for on every
// page view of a customer's site. Issue budgets: calligraphy at most 10 KB gzip with the whole lifecycle,
// everything-on at most 12 KB gzip, and a minimal site at least 30% smaller than everything-on (the features
// it does not use cost it nothing).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSite } from '../../emit/build-site.ts';

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

  it('a minimal site (no segments, no shop, default triggers): at least 30% smaller than everything-on', async () => {
    const [minimal, everything] = await Promise.all([
      pushJsGzip('tests/fixtures/configs/minimal.json'),
      pushJsGzip('tests/fixtures/configs/everything.json'),
    ]);
    expect(minimal, `minimal ${minimal} B, everything-on ${everything} B`).toBeLessThanOrEqual(everything * 0.7);
  });
});
