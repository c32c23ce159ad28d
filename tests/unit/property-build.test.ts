// Property tests of the whole build with random and hostile config text: either validation names exactly the
// fields that cannot be used, or the bundle's scripts parse, manifest.json is JSON, and every text reaches the
// visitor exactly as configured: the prompts as push.js shows them (the built push.js run in happy-dom), the child
// window page as a browser parses it, the manifest as JSON. No config text adds an element, an attribute or a script.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import fc from 'fast-check';
import { Window } from 'happy-dom';
import { afterAll, describe, expect, it } from 'vitest';
import { siteConfigSchema, type SiteConfig } from '../../config/schema.ts';
import { validateConfig } from '../../config/validate-config.ts';
import { siteFeatures } from '../../compiler/features.ts';
import { generateSiteModule } from '../../compiler/site-module.ts';
import { buildSite } from '../../emit/build-site.ts';
import { renderPrompts } from '../../emit/render-prompts.tsx';
import type { SiteModule } from '../../runtime/site-module.ts';
import { hostileString, isDisplayText } from '../support/hostile-strings.ts';

const VAPID = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

const work = await mkdtemp(join(tmpdir(), 'pk-property-build-'));
afterAll(() => rm(work, { recursive: true, force: true }));

/** Display texts of the config: path, limits. */
const TEXT_FIELDS: Array<[path: string, min: number, max: number]> = [
  ['companyName', 1, 80],
  ['texts.contextBox', 1, 400],
  ['texts.offer', 1, 300],
  ['texts.alreadySubscribed', 1, 400],
  ['texts.blocked', 1, 600],
  ['texts.yesButton', 1, 40],
  ['texts.noButton', 1, 40],
  ['style.brandingText', 0, 120],
  ['style.allowTextChildWindow', 1, 40],
  ['style.offerTextChildWindow', 1, 300],
];
/** Characters that are legal in a URL but delicate in HTML attributes, JSON and JS. */
const URL_PIECES = [
  '"',
  "'",
  '<',
  '>',
  '`',
  '${x}',
  '</script>',
  '<!--',
  '&amp;',
  '&',
  'é',
  '😀',
  '%22',
  '?a=1&b=2',
  '#f',
  '*/',
  '\\',
  '{{x}}',
  '=',
  ')',
];
const urlTail = fc
  .array(fc.oneof(fc.constantFrom(...URL_PIECES), fc.stringMatching(/^[a-z0-9/._-]{0,6}$/)), { maxLength: 6 })
  .map((parts) => parts.join(''));
/** Mostly URLs that are fine, sometimes with a space, a control character or a lone surrogate (refused). */
const iconUrl = fc.oneof(
  { weight: 5, arbitrary: urlTail.map((tail) => `https://icons.example/${tail}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(urlTail, fc.constantFrom(' ', '\u0000', '\n', '\u2028', '\ud800', '\t'))
      .map(([tail, bad]) => `https://icons.example/${tail}${bad}x`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', '//evil.example/x.png', 'icon.png'),
  },
);
const anyText = fc.oneof({ weight: 6, arbitrary: hostileString(5) }, { weight: 1, arbitrary: fc.constant('W'.repeat(1000)) });
/** Hostile text the schema accepts: control characters and lone surrogates dropped, cut to the field's limits. */
const usableText = (min: number, max: number) =>
  hostileString(6).map((text) => {
    const kept = [...text]
      .filter((ch) => isDisplayText(ch))
      .slice(0, max)
      .join('');
    return kept.length >= min ? kept : `${kept}</script>`.slice(0, Math.max(min, 1));
  });

interface Draft {
  texts: Record<string, string>;
  /** Reaches push.js as a selector, a condition's string literal, a URL pattern and a path on the provider. */
  code: string;
  iconUrl: string | undefined;
  pcBranding: 0 | 1;
  brandingType: 'default' | 'custom' | 'none';
}

const draft: fc.Arbitrary<Draft> = fc.record({
  // mostly texts the schema accepts, so most runs build; sometimes any text, so refusals are checked too
  texts: fc.record(
    Object.fromEntries(
      TEXT_FIELDS.map(([path, min, max]) => [
        path,
        fc.oneof({ weight: 12, arbitrary: usableText(min, max) }, { weight: 1, arbitrary: anyText }),
      ]),
    ),
  ),
  iconUrl: fc.option(iconUrl, { nil: undefined, freq: 3 }),
  code: usableText(1, 60),
  pcBranding: fc.constantFrom<0 | 1>(0, 1),
  brandingType: fc.constantFrom<Draft['brandingType']>('custom', 'custom', 'default', 'none'),
});

function configOf(value: Draft): Record<string, unknown> {
  const config: Record<string, unknown> = {
    hash: 'property-build-01',
    origin: 'http://hostile.example',
    serverSyncUrl: `https://push.hostile.example/${encodeURIComponent(value.code)}/`,
    clickSegmentations: [{ sid: 'clicked', selector: value.code }],
    segmentations: [{ sid: 'tagged', ss: `tag.x == ${JSON.stringify(value.code)} or path contains ${JSON.stringify(value.code)}` }],
    excludeUrls: [`contains:${value.code}`],
    triggers: { when: 'delay or click', clickSelector: value.code },
    vapidPublicKey: VAPID,
    pcBranding: value.pcBranding,
    texts: {},
    style: { brandingType: value.brandingType, ...(value.iconUrl === undefined ? {} : { iconUrl: value.iconUrl }) },
  };
  for (const [path, text] of Object.entries(value.texts)) {
    const [head, tail] = path.split('.') as [string, string | undefined];
    if (tail === undefined) config[head] = text;
    else (config[head] as Record<string, unknown>)[tail] = text;
  }
  return config;
}

/** The fields the schema must refuse, predicted from the rules alone. */
function expectedProblems(value: Draft): string[] {
  const bad = TEXT_FIELDS.filter(([path, min, max]) => {
    const text = value.texts[path]!;
    const length = [...text].length; // zod measures strings in code points
    return length < min || length > max || !isDisplayText(text);
  }).map(([path]) => path);
  // zod trims a URL and deletes tabs and line feeds, as the URL parser does; anything else unusual is refused
  const icon = value.iconUrl?.trim().replace(/[\t\n\r]/g, '');
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  const unusual = /[\s\u0000-\u001f\u007f-\u009f]|[\uD800-\uDFFF]/u;
  if (icon !== undefined && (!/^https?:\/\//.test(icon) || !URL.canParse(icon) || unusual.test(icon))) bad.push('style.iconUrl');
  return bad;
}

const branding = (config: SiteConfig) =>
  config.style.brandingType === 'custom' ? config.style.brandingText : config.style.brandingType === 'none' ? null : 'Powered by push-kit';
const ALLOWED_PROMPT_TAGS = new Set(['DIV', 'STYLE', 'P', 'BUTTON', 'IMG', 'H2', 'LABEL', 'INPUT', 'SPAN']);

/** Every element of a tree: no script, no event-handler attribute, only the tags the templates use. */
function expectNoInjectedMarkup(
  root: { querySelectorAll(selector: string): ArrayLike<{ tagName: string; getAttributeNames(): string[] }> },
  allowed?: Set<string>,
) {
  for (const element of Array.from(root.querySelectorAll('*'))) {
    if (allowed) expect(allowed.has(element.tagName), element.tagName).toBe(true);
    for (const name of element.getAttributeNames()) expect(name.toLowerCase().startsWith('on'), `${element.tagName} ${name}`).toBe(false);
  }
}

/** The texts a visitor reads in the prompts, and the icon's src. */
function checkPrompts(container: ParentNode & { querySelectorAll(selector: string): NodeListOf<Element> }, config: SiteConfig) {
  const text = (selector: string) => container.querySelector(selector)?.textContent;
  expect(text('[data-pk="chicklet"] .pk-text')).toBe(config.texts.offer);
  expect(text('[data-pk="chicklet"] .pk-yes')).toBe(config.texts.yesButton);
  expect(text('[data-pk="chicklet"] .pk-no')).toBe(config.texts.noButton);
  expect(text('[data-pk="context"] .pk-text')).toBe(config.texts.contextBox);
  expect(text('[data-pk="subscribed"] .pk-text')).toBe(config.texts.alreadySubscribed);
  expect(text('[data-pk="blocked"] .pk-text')).toBe(config.texts.blocked);
  const brandingText = branding(config);
  if (brandingText === null) expect(container.querySelector('.pk-branding')).toBeNull();
  else expect(text('[data-pk="chicklet"] .pk-branding')).toBe(brandingText);
  if (config.pcBranding === 1) {
    expect(text('[data-pk="modal"] .pk-title')).toBe(config.companyName);
    expect(text('[data-pk="modal"] .pk-yes')).toBe(config.style.allowTextChildWindow);
  }
  const icons = Array.from(container.querySelectorAll('img.pk-icon')).map((img) => img.getAttribute('src'));
  expect(icons.every((src) => src === config.style.iconUrl)).toBe(true);
  expect(icons.length > 0).toBe(config.style.iconUrl !== undefined);
  expect(container.querySelectorAll('script')).toHaveLength(0);
}

/** Runs the built push.js in a happy-dom page with a Chrome that can subscribe, asks for the prompt, returns the page. */
/** Runs push.js in a page; `chunks`: the chunk files beside it by name, run when push.js adds their script element. */
async function runPushJs(code: string, chunks: Record<string, string>): Promise<{ window: Window; errors: unknown[] }> {
  const window = new Window({ url: 'http://hostile.example/', settings: { navigator: { userAgent: CHROME } } });
  const head = window.document.head as unknown as { appendChild(node: unknown): unknown };
  const append = head.appendChild.bind(head);
  head.appendChild = (node: unknown) => {
    const chunk = chunks[String((node as { src?: string }).src).replace(/^.*\//, '')];
    if (chunk === undefined) return append(node);
    // the chunk finds the element that loads it as document.currentScript
    Object.defineProperty(window.document, 'currentScript', { value: node, configurable: true });
    window.eval(chunk);
    Object.defineProperty(window.document, 'currentScript', { value: null, configurable: true });
    return node;
  };
  const errors: unknown[] = [];
  const page = window as unknown as Record<string, unknown>;
  page.onerror = (error: unknown) => void errors.push(error);
  page.Notification = class {
    static permission = 'default';
    static requestPermission = async () => 'default';
  };
  page.PushManager = class {};
  Object.defineProperty(window.navigator, 'serviceWorker', {
    value: { register: async () => ({}), getRegistration: async () => undefined },
    configurable: true,
  });
  page.fetch = async () => new window.Response('{}');
  page.pushkit = [['triggerOptIn']];
  window.eval(code);
  for (let waited = 0; waited < 2000 && !window.document.querySelector('#pushkit-prompts'); waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return { window, errors };
}

let runs = 0;

/**
 * The build of one draft: it fails naming exactly the unusable fields, or emits files that parse and show every
 * text exactly. A build that passes validation costs ~0.25 CPU-s (esbuild, then push.js run in happy-dom), a refused
 * one next to nothing: the refused and the usable drafts (about 60 % of `draft`) are drawn apart, so the number of
 * builds is fixed, not the 21 to 42 of 60 runs of `draft` that kept this test over its 60 s at load 20.
 */
const checkBuild = async (value: Draft): Promise<void> => {
  const name = `site${runs++}`;
  const file = join(work, `${name}.json`);
  await writeFile(file, JSON.stringify(configOf(value)));
  const out = join(work, 'dist');
  const result = await buildSite(file, out);
  const expected = expectedProblems(value);
  if (expected.length > 0) {
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect([...new Set(result.problems.map((problem) => problem.path))].sort()).toEqual([...expected].sort());
    for (const problem of result.problems) expect(problem.message.length).toBeGreaterThan(0);
    return;
  }
  if (!result.ok) throw new Error(`build failed: ${JSON.stringify(result.problems)}`);
  const config = siteConfigSchema.parse(configOf(value));
  const dir = join(out, name);
  const read = (path: string) => readFile(join(dir, path), 'utf8');

  for (const script of (await readdir(dir)).filter((entry) => entry.endsWith('.js'))) {
    const code = await read(script);
    expect(() => new vm.Script(code, { filename: script }), script).not.toThrow();
    expect(code, script).not.toMatch(/<\/script|[\u2028\u2029]/i);
  }

  const manifest = JSON.parse(await read('manifest.json')) as { name: string; short_name: string; icons?: Array<{ src: string }> };
  expect(manifest.name).toBe(config.companyName);
  expect(manifest.short_name).toBe(config.companyName);
  expect(manifest.icons?.map((icon) => icon.src)).toEqual(
    config.style.iconUrl === undefined ? undefined : [config.style.iconUrl, config.style.iconUrl],
  );

  const html = await read('child-window.html');
  const page = new Window({ url: 'https://push.hostile.example/' });
  const document = new page.DOMParser().parseFromString(html, 'text/html');
  expect(document.querySelector('title')?.textContent).toBe(`Subscribe to notifications from ${config.companyName}`);
  expect(document.querySelector('h1.pc-company')?.textContent).toBe(config.companyName);
  expect(document.querySelector('[data-step="1"]')?.textContent).toBe(config.style.offerTextChildWindow);
  expect(document.querySelector('[data-step="2"]')?.textContent).toBe(
    `Click "${config.style.allowTextChildWindow}" below, then "Allow" in the box your browser shows.`,
  );
  expect(document.querySelector('#pc-no')?.textContent).toBe(config.texts.noButton);
  expect(document.querySelector('#pc-allow')?.textContent).toBe(config.style.allowTextChildWindow);
  expect(document.querySelector('footer.pc-footer')?.textContent).toBe(branding(config) ?? '');
  expect(document.querySelector('img.pc-icon')?.getAttribute('src')).toBe(config.style.iconUrl);
  const scripts = document.querySelectorAll('script');
  expect(scripts).toHaveLength(1);
  expect(() => new vm.Script(scripts[0]!.textContent ?? '')).not.toThrow();
  expectNoInjectedMarkup(document);
  await page.happyDOM.close();

  const chunkFiles = (await readdir(dir)).filter((entry) => /^push\.[a-z]+\.[0-9a-f]{10}\.js$/.test(entry));
  const chunks = Object.fromEntries(await Promise.all(chunkFiles.map(async (file) => [file, await read(file)] as const)));
  const { window, errors } = await runPushJs(await read('push.js'), chunks);
  const container = window.document.querySelector('#pushkit-prompts');
  expect(container, 'push.js showed no prompt').not.toBeNull();
  checkPrompts(container as unknown as ParentNode & { querySelectorAll(selector: string): NodeListOf<Element> }, config);
  expectNoInjectedMarkup(container!, ALLOWED_PROMPT_TAGS);
  expect(window.document.querySelectorAll('script')).toHaveLength(0);
  expect(errors).toEqual([]);
  await window.happyDOM.close();
  await rm(dir, { recursive: true, force: true });
};

describe('property: the whole build with hostile config text', () => {
  it('a config validation refuses fails naming exactly the unusable fields', async () => {
    await fc.assert(
      fc.asyncProperty(
        draft.filter((value) => expectedProblems(value).length > 0),
        checkBuild,
      ),
      { numRuns: 25 },
    );
  });

  it('a config validation passes emits files that parse and show every text exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        draft.filter((value) => expectedProblems(value).length === 0),
        checkBuild,
      ),
      { numRuns: 15 },
    );
  });
});

describe('property: prompt markup in the generated site module', () => {
  it('every prompt text and the icon read back exactly, with no injected markup', async () => {
    const page = new Window();
    await fc.assert(
      fc.asyncProperty(draft, async (value) => {
        const parsed = validateConfig(configOf(value));
        const expected = expectedProblems(value);
        expect([...new Set(parsed.ok ? [] : parsed.problems.map((problem) => problem.path))].sort()).toEqual([...expected].sort());
        if (!parsed.ok) return;
        const { config, compiled } = parsed;
        const source = generateSiteModule(config, compiled, await renderPrompts(config, siteFeatures(config, compiled)));
        expect(source).not.toMatch(/<\/|<!--|[\u2028\u2029]/);
        // Tests only: the browser gets this module inside the bundle.
        const site = new Function(source.replace(/^export const site = /, 'return '))() as SiteModule;
        expect(site.companyName).toBe(config.companyName);
        const container = page.document.createElement('div');
        container.innerHTML = Object.entries(site.prompts)
          .filter(([key]) => key !== 'css')
          .map(([, markup]) => markup)
          .join('');
        checkPrompts(container as unknown as ParentNode & { querySelectorAll(selector: string): NodeListOf<Element> }, config);
        expectNoInjectedMarkup(container, ALLOWED_PROMPT_TAGS);
      }),
      { numRuns: 200 },
    );
    await page.happyDOM.close();
  });
});

describe('refused config text names the field and the character', () => {
  const base = configOf({ texts: { companyName: 'Ink' }, code: 'x', iconUrl: undefined, pcBranding: 0, brandingType: 'default' });
  it.each([
    [
      { companyName: 'Ink\u0000Co' },
      'companyName',
      'must not contain control characters other than tab and newline (found U+0000 at character 4)',
    ],
    [
      { companyName: 'Ink\r\nCo' },
      'companyName',
      'must not contain control characters other than tab and newline (found U+000D at character 4)',
    ],
    [{ texts: { offer: 'Hi \ud800' } }, 'texts.offer', 'must be valid Unicode text (a lone surrogate at character 4)'],
    [
      { style: { iconUrl: 'https://icons.example/a b.png' } },
      'style.iconUrl',
      'must not contain spaces or control characters (found U+0020 at character 24)',
    ],
    [
      { manifestUrl: '//evil.example/manifest.json' },
      'manifestUrl',
      'must start with "/" (not "//", which names another host) or be an absolute http(s) URL',
    ],
    [{ swPath: '/sw.js\u2028' }, 'swPath', 'must not contain spaces or control characters (found U+2028 at character 7)'],
  ])('%j', (override, path, message) => {
    const parsed = siteConfigSchema.safeParse({ ...base, ...override });
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(parsed.error.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([[path, message]]);
  });
});
