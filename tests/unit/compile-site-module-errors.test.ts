// A condition or trigger expression the compilers refuse fails the site with the field named. The compilers
// are replaced by ones that refuse a marked input, so this holds whatever their grammar accepts.
import { describe, expect, it, vi } from 'vitest';
import { siteConfigSchema, type SiteConfig } from '../../config/schema.ts';
import { generateSiteModule, SiteModuleError } from '../../compiler/site-module.ts';

vi.mock('../../compiler/segment-condition.ts', () => ({
  compileCondition: (source: string) =>
    source.includes('BAD') ? { ok: false, message: 'unknown name "BAD"', position: source.indexOf('BAD') } : { ok: true, js: '()=>true' },
}));
vi.mock('../../compiler/trigger-expression.ts', () => ({
  compileTriggerExpression: (source: string) =>
    source.includes('BAD') ? { ok: false, message: 'unknown event "BAD"', position: 0 } : { ok: true, anyOf: [source] },
}));

const base = {
  hash: 'errors-test-01',
  companyName: 'Errors',
  origin: 'https://site.example',
  serverSyncUrl: 'https://push.example',
  vapidPublicKey: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s',
};
const prompts = { chicklet: '', contextBox: '', alreadySubscribed: '', blocked: '', css: '' };

/** The schema refuses such expressions too, so the refused input is put into an already parsed config. */
function errorOf(input: Partial<SiteConfig>): SiteModuleError {
  try {
    generateSiteModule({ ...siteConfigSchema.parse(base), ...input } as SiteConfig, prompts);
  } catch (error) {
    if (error instanceof SiteModuleError) return error;
    throw error;
  }
  throw new Error('expected the site module to be refused');
}

describe('generateSiteModule errors', () => {
  it('names the segment whose condition does not compile', () => {
    const error = errorOf({
      segmentations: [
        { sid: 1, ss: 'path == "/"', vn: 1 },
        { sid: 2, ss: 'x BAD', vn: 1 },
      ],
    });
    expect(error.path).toBe('segmentations.1.ss');
    expect(error.message).toBe('segmentations.1.ss: unknown name "BAD" (at position 2)');
  });

  it('names the shop segment and the trigger expression', () => {
    expect(errorOf({ shopifySegmentations: [{ sid: 5, event: 'order', ss: 'BAD', vn: 1 }] }).path).toBe('shopifySegmentations.0.ss');
    expect(errorOf({ triggers: { when: 'BAD', delaySeconds: 5, persist: 'page' } }).path).toBe('triggers.when');
  });
});
