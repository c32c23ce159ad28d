// Issue 27: the child window page must not be framed by another page (clickjacking its "Allow" flow). It is
// opened as a popup, never in an iframe, so it forbids every frame ancestor: CSP frame-ancestors 'none' and,
// for browsers without CSP level 2, X-Frame-Options: DENY. Asked over a real socket of a started provider.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { tempDir, testSite } from '../support/server.ts';

let harness: ProviderHarness;
let removeDist: () => Promise<void>;

beforeAll(async () => {
  const dist = await tempDir('pushkit-frame-');
  removeDist = dist.remove;
  const builtDir = join(dist.path, 'letters');
  await mkdir(builtDir, { recursive: true });
  await writeFile(join(builtDir, 'child-window.html'), '<title>letters</title>');
  harness = await startProviderHarness({ service: false, sites: [testSite({ builtDir })], rateLimit: false });
});
afterAll(async () => {
  await harness?.close();
  await removeDist?.();
});

describe('the child window page cannot be framed', () => {
  it("answers with frame-ancestors 'none' and X-Frame-Options: DENY", async () => {
    const response = await fetch(`${harness.provider!.url}/sites/${harness.site.hash}/child-window.html?action=subscribe`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<title>letters</title>');
    expect(response.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });
});
