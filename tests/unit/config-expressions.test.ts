// Validation compiles every URL pattern, condition and the trigger expression once: a refusal is a problem with
// its catalogue code at its field, and the build writes the compiled forms instead of compiling again.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { validateConfig } from '../../config/validate-config.ts';
import { buildSite } from '../../emit/build-site.ts';
import { compileCondition } from '../../compiler/segment-condition.ts';
import { compileTriggerExpression } from '../../compiler/trigger-expression.ts';

vi.mock('../../compiler/segment-condition.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../compiler/segment-condition.ts')>();
  return { ...original, compileCondition: vi.fn(original.compileCondition) };
});
vi.mock('../../compiler/trigger-expression.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../compiler/trigger-expression.ts')>();
  return { ...original, compileTriggerExpression: vi.fn(original.compileTriggerExpression) };
});

const base = {
  hash: 'expressions-01',
  companyName: 'Expressions',
  origin: 'https://site.example',
  serverSyncUrl: 'https://push.example',
  vapidPublicKey: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s',
};

const work = await mkdtemp(join(tmpdir(), 'pk-expressions-'));
afterAll(() => rm(work, { recursive: true, force: true }));

describe('validation of expressions', () => {
  it('names each expression that does not compile, by code and field, in the schema order', () => {
    const result = validateConfig({
      ...base,
      segmentations: [
        { sid: 1, ss: 'path == "/"' },
        { sid: 2, ss: 'BAD == 1' },
      ],
      isShopifyConnectedAccount: true,
      shopifySegmentations: [{ sid: 5, event: 'order', ss: 'total >' }],
      includeUrls: ['/ok/*', 'blog'],
      triggers: { when: 'scroll or nope' },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      { code: 'E_CONDITION', path: 'segmentations.1.ss', message: 'unknown variable "BAD" at column 1' },
      { code: 'E_CONDITION', path: 'shopifySegmentations.0.ss', message: 'expected a value after ">" at column 8' },
      { code: 'E_URL_PATTERN', path: 'includeUrls.1', message: expect.stringContaining('URL pattern "blog"') },
      { code: 'E_TRIGGER', path: 'triggers.when', message: expect.stringMatching(/^unknown trigger event "nope" .* at column 11$/) },
    ]);
  });

  it('a build compiles each condition and the trigger expression once', async () => {
    const file = join(work, 'once.json');
    await writeFile(
      file,
      JSON.stringify({
        ...base,
        segmentations: [
          { sid: 1, ss: 'path startsWith "/blog"' },
          { sid: 2, ss: 'visitCount > 2' },
        ],
        isShopifyConnectedAccount: true,
        shopifySegmentations: [{ sid: 5, event: 'order', ss: 'total > 50' }],
        triggers: { when: 'scroll or delay' },
      }),
    );
    vi.mocked(compileCondition).mockClear();
    vi.mocked(compileTriggerExpression).mockClear();
    const result = await buildSite(file, join(work, 'dist'));
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(vi.mocked(compileCondition).mock.calls.map(([source]) => source)).toEqual([
      'path startsWith "/blog"',
      'visitCount > 2',
      'total > 50',
    ]);
    expect(vi.mocked(compileTriggerExpression)).toHaveBeenCalledTimes(1);
  });
});
