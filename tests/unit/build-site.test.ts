import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { buildSite, type SiteBuildResult } from '../../emit/build-site.ts';

/** The output file after whose writing the disk is full (unset: writes succeed). */
const diskFull = vi.hoisted(() => ({ after: undefined as string | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs/promises')>();
  const writeFile: typeof original.writeFile = async (...args) => {
    await original.writeFile(...args);
    if (diskFull.after !== undefined && String(args[0]).endsWith(`/${diskFull.after}`)) throw new Error('disk full');
  };
  return { ...original, default: { ...original, writeFile }, writeFile };
});

const OUTPUT_FILES = [
  'push.js',
  'sw.js',
  'sw-firefox.js',
  'push-kit-sw.js',
  'manifest.json',
  'child-window.html',
  'http-v4/css/pc-iframe.css',
  'snippet.html',
  'report.json',
];
/** The chunks beside push.js, content-hashed (emit/bundle.ts). */
const CHUNK_FILE = /^push\.lifecycle\.[0-9a-f]{10}\.js$/;
/** The files of a site's folder, its one chunk named CHUNK. */
const withoutChunk = (files: string[]): string[] => {
  expect(files.filter((file) => CHUNK_FILE.test(file))).toHaveLength(1);
  return files.filter((file) => !CHUNK_FILE.test(file));
};
const VAPID = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';

const work = await mkdtemp(join(tmpdir(), 'pk-build-'));
afterAll(() => rm(work, { recursive: true, force: true }));

function built(result: SiteBuildResult): Extract<SiteBuildResult, { ok: true }> {
  if (!result.ok) throw new Error(`build failed: ${JSON.stringify(result.problems)}`);
  return result;
}

async function writeConfig(name: string, config: object): Promise<string> {
  const file = join(work, `${name}.json`);
  await writeFile(file, JSON.stringify(config));
  return file;
}

async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

describe('buildSite on site-configs/calligraphy.json', async () => {
  const out = join(work, 'dist');
  const result = built(await buildSite('site-configs/calligraphy.json', out));
  const dir = join(out, 'calligraphy');
  const read = (path: string) => readFile(join(dir, path), 'utf8');

  it('writes every output file into <out>/calligraphy and nothing else', async () => {
    expect(result.dir).toBe(dir);
    expect(withoutChunk(await listTree(dir))).toEqual([...OUTPUT_FILES].sort());
    expect((await readdir(out)).filter((entry) => entry.startsWith('.'))).toEqual([]);
  });

  it('push.js, sw.js, sw-firefox.js and push-kit-sw.js are scripts that parse', async () => {
    for (const path of ['push.js', 'sw.js', 'sw-firefox.js', 'push-kit-sw.js']) {
      const code = await read(path);
      expect(() => new vm.Script(code, { filename: path }), path).not.toThrow();
    }
    const push = await read('push.js');
    expect(push).toContain('calligraphy-demo');
    expect(push).not.toMatch(/\bPK_FEATURES\b|pushkit:site/);
  });

  it('manifest.json is JSON with the site name, icons and start URL', async () => {
    expect(JSON.parse(await read('manifest.json'))).toMatchObject({
      name: 'Calligraphy Submissions',
      short_name: 'Calligraphy Submissions',
      start_url: '/',
      display: 'standalone',
      icons: [{ src: 'http://localhost:8080/icon.png' }, { src: 'http://localhost:8080/icon.png' }],
    });
  });

  it('child-window.html has the exact title, the stylesheet link and one inline script', async () => {
    const html = await read('child-window.html');
    expect(html).toContain('<title>Subscribe to notifications from Calligraphy Submissions</title>');
    expect(html).toContain('<link rel="stylesheet" href="http://localhost:8787/http-v4/css/pc-iframe.css">');
    expect(html.match(/<\/script/gi)).toHaveLength(1);
    expect(html).toMatch(/id="pc-allow">Allow<\/button>/);
  });

  it('snippet.html has the manifest link and the embed', async () => {
    expect(await read('snippet.html')).toBe(
      '<link rel="manifest" href="/manifest.json">\n<script>window.pushkit=window.pushkit||[];</script><script async src="/push.js"></script>\n',
    );
  });

  it('report.json sizes are those of the files on disk', async () => {
    const report = JSON.parse(await read('report.json')) as {
      site: string;
      generatedAt: string;
      files: Record<string, { raw: number; gzip: number; brotli: number }>;
      compression: { gzipLevel: number; brotliQuality: number };
      features: object;
      warnings: unknown[];
    };
    expect(report.site).toBe('calligraphy');
    expect(Number.isNaN(Date.parse(report.generatedAt))).toBe(false);
    expect(withoutChunk(Object.keys(report.files).sort())).toEqual(OUTPUT_FILES.filter((path) => path !== 'report.json').sort());
    for (const [path, sizes] of Object.entries(report.files)) {
      const bytes = await readFile(join(dir, path));
      expect(sizes.raw, path).toBe(bytes.byteLength);
      expect(sizes.gzip, path).toBe(gzipSync(bytes, { level: report.compression.gzipLevel }).byteLength);
      expect(sizes.brotli, path).toBe(
        brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: report.compression.brotliQuality } }).byteLength,
      );
    }
    expect(report.features).toEqual(result.features);
    expect(result.files.find((file) => file.path === 'push.js')).toEqual({ path: 'push.js', ...report.files['push.js'] });
  });
});

describe('features kept per site', () => {
  it('a minimal config keeps fewer features than an everything-on config, and its push.js is smaller', async () => {
    const out = join(work, 'features');
    const minimal = built(await buildSite('tests/fixtures/configs/minimal.json', out));
    const everything = built(await buildSite('tests/fixtures/configs/everything.json', out));
    expect(Object.values(minimal.features).every((on) => !on)).toBe(true);
    expect(everything.features).toMatchObject({
      brandingModal: true,
      // isMobileEnabled, but the branding modal is the prompt on phones too: no mobile box in its push.js
      mobileBox: false,
      childWindow: true,
      safari: true,
      segments: true,
      clickSegments: true,
      shop: true,
      trackingConsent: true,
      triggerScroll: true,
      triggerEcom: true,
    });
    const size = (result: typeof minimal) => result.files.find((file) => file.path === 'push.js')?.raw ?? 0;
    expect(size(minimal)).toBeLessThan(size(everything));
    const manifest = JSON.parse(await readFile(join(out, 'everything', 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.gcm_sender_id).toBe('103953800507');
    expect(JSON.parse(await readFile(join(out, 'minimal', 'manifest.json'), 'utf8'))).not.toHaveProperty('icons');
  });

  it('a site without Safari or the child window gets neither opt-in path in its push.js', async () => {
    const out = join(work, 'opt-in-paths');
    built(await buildSite('tests/fixtures/configs/minimal.json', out));
    built(await buildSite('tests/fixtures/configs/everything.json', out));
    // push.js and its chunk: all a page can load
    const bundle = async (site: string) => {
      const files = (await readdir(join(out, site))).filter((file) => file === 'push.js' || CHUNK_FILE.test(file));
      return (await Promise.all(files.map((file) => readFile(join(out, site, file), 'utf8')))).join('\n');
    };
    const minimal = await bundle('minimal');
    const everything = await bundle('everything');
    const safariCode = ['pushNotification', 'missing Safari website push id'];
    const childWindowCode = ['isAPIcall', 'get-subscriberid-from-server', 'width=520,height=600'];
    for (const marker of [...safariCode, ...childWindowCode]) {
      expect(everything, marker).toContain(marker);
      expect(minimal, marker).not.toContain(marker);
    }
  });
});

describe('child window origin', () => {
  it("warns an http site that its child window shares the provider's origin, until it has one of its own", async () => {
    const out = join(work, 'child-window-origin');
    const shared = built(await buildSite('tests/fixtures/configs/everything.json', out));
    expect(shared.warnings.map((warning) => [warning.code, warning.path])).toContainEqual([
      'W_CHILD_WINDOW_SHARED_ORIGIN',
      'childWindowOrigin',
    ]);
    expect(built(await buildSite('tests/fixtures/configs/minimal.json', out)).warnings).toEqual([]); // https: no child window

    const config = JSON.parse(await readFile('tests/fixtures/configs/everything.json', 'utf8')) as Record<string, unknown>;
    const file = join(work, 'own-origin.json');
    await writeFile(file, JSON.stringify({ ...config, childWindowOrigin: 'https://everything.push.example' }));
    const own = built(await buildSite(file, out));
    expect(own.warnings.map((warning) => warning.code)).not.toContain('W_CHILD_WINDOW_SHARED_ORIGIN');
    const page = await readFile(join(out, 'own-origin', 'child-window.html'), 'utf8');
    expect(page).toContain('>everything.push.example</text>'); // the lock icon's address bar shows its own host
  });
});

describe('site config options in the build', () => {
  const site = {
    hash: 'options-site-01',
    companyName: 'Options',
    origin: 'https://options.example',
    serverSyncUrl: 'https://push.options.example',
    vapidPublicKey: VAPID,
  };

  it('cdnUrl: the snippet loads push.js from the CDN folder; without it, from the site', async () => {
    const out = join(work, 'cdn');
    const file = await writeConfig('cdn', { ...site, cdnUrl: 'https://cdn.options.example/sites/options/' });
    built(await buildSite(file, out));
    expect(await readFile(join(out, 'cdn', 'snippet.html'), 'utf8')).toBe(
      '<link rel="manifest" href="/manifest.json">\n<script>window.pushkit=window.pushkit||[];</script><script async src="https://cdn.options.example/sites/options/push.js"></script>\n',
    );
  });

  it("the site's colours are compiled into the child window's stylesheet too", async () => {
    const out = join(work, 'colours');
    const file = await writeConfig('colours', {
      ...site,
      style: { colors: { background: '#102030', text: 'ivory', yesBackground: 'gold' } },
    });
    built(await buildSite(file, out));
    const css = await readFile(join(out, 'colours', 'http-v4/css/pc-iframe.css'), 'utf8');
    expect(css).toContain(
      '.pc-window{max-width:480px;margin:0 auto;padding:24px 20px;min-height:100vh;display:flex;flex-direction:column;gap:16px;background:#102030}',
    );
    expect(css).toContain('.pc-allow{background:gold;color:#fff;border-color:gold}');
    expect(css).toMatch(/\nbody\{[^}]*color:ivory;/);
    expect(css).toContain('.pc-step[aria-current]{color:ivory;');
  });

  it('a colour that is not a colour is refused, naming the field, and nothing is written', async () => {
    const out = join(work, 'bad-colour');
    const file = await writeConfig('bad-colour', { ...site, style: { colors: { yesBackground: 'red;position:fixed' } } });
    const result = await buildSite(file, out);
    expect(result).toMatchObject({ ok: false, problems: [{ path: 'style.colors.yesBackground' }] });
    await expect(stat(join(out, 'bad-colour'))).rejects.toThrow(/ENOENT/);
  });
});

describe('atomic write', () => {
  const good = {
    hash: 'atomic-site-01',
    companyName: 'Atomic',
    origin: 'https://atomic.example',
    serverSyncUrl: 'https://push.atomic.example',
    vapidPublicKey: VAPID,
  };

  it('a config that fails validation writes nothing and names the field', async () => {
    const out = join(work, 'invalid');
    const file = await writeConfig('broken', { ...good, vapidPublicKey: 'not-a-key' });
    const result = await buildSite(file, out);
    expect(result).toMatchObject({ ok: false, name: 'broken', problems: [{ code: 'E_VAPID_KEY', path: 'vapidPublicKey' }] });
    await expect(stat(join(out, 'broken'))).rejects.toThrow(/ENOENT/);
  });

  it('a failing rebuild keeps the previous good build', async () => {
    const out = join(work, 'keep');
    const file = await writeConfig('keep', good);
    built(await buildSite(file, out));
    const before = await readFile(join(out, 'keep', 'push.js'), 'utf8');
    await writeFile(file, JSON.stringify({ ...good, companyName: 42 }));
    expect((await buildSite(file, out)).ok).toBe(false);
    expect(await readFile(join(out, 'keep', 'push.js'), 'utf8')).toBe(before);
    expect(withoutChunk(await listTree(join(out, 'keep')))).toEqual([...OUTPUT_FILES].sort());
  });

  it('a failure in the middle of writing leaves no partial folder and keeps the previous build', async () => {
    const out = join(work, 'midwrite');
    const first = await writeConfig('midwrite', good);
    built(await buildSite(first, out));
    await writeFile(first, JSON.stringify({ ...good, companyName: 'Renamed' }));
    diskFull.after = 'manifest.json';
    try {
      const result = await buildSite(first, out);
      expect(result).toEqual({ ok: false, name: 'midwrite', problems: [{ code: 'E_BUILD', path: '(build)', message: 'disk full' }] });
      expect(await readdir(out)).toEqual(['midwrite']);
      expect(JSON.parse(await readFile(join(out, 'midwrite', 'manifest.json'), 'utf8'))).toMatchObject({ name: 'Atomic' });

      const fresh = join(work, 'midwrite-fresh');
      expect((await buildSite(first, fresh)).ok).toBe(false);
      expect(await readdir(fresh)).toEqual([]);
    } finally {
      diskFull.after = undefined;
    }
  });
});

describe('hostile config texts', () => {
  it('cannot break out of push.js, the manifest or the child window', async () => {
    const hostile = 'Ink "&" \'Q\' </script><script>alert(1)</script> */ `${x}` \u2028\u2029 \\';
    const file = await writeConfig('hostile', {
      hash: 'hostile-site-01',
      companyName: hostile,
      origin: 'http://hostile.example',
      serverSyncUrl: 'https://push.hostile.example',
      vapidPublicKey: VAPID,
      pcBranding: 1,
      texts: { offer: hostile },
      style: { brandingType: 'custom', brandingText: hostile, allowTextChildWindow: '</script>' },
      clickSegmentations: [{ sid: 1, selector: `a[title="${hostile.replace(/"/g, '')}"]` }],
    });
    const out = join(work, 'hostile');
    built(await buildSite(file, out));
    const dir = join(out, 'hostile');
    const push = await readFile(join(dir, 'push.js'), 'utf8');
    expect(() => new vm.Script(push)).not.toThrow();
    expect(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')).name).toBe(hostile);
    const html = await readFile(join(dir, 'child-window.html'), 'utf8');
    expect(html.match(/<\/script/gi)).toHaveLength(1);
    expect(html).toContain('<title>Subscribe to notifications from Ink &quot;&amp;&quot; &#x27;Q&#x27; &lt;/script&gt;');
  });
});

describe("Safari's legacy push", () => {
  it('warns a site with a website push id that it hosts the push package service at safariWebServiceUrl itself', async () => {
    const out = join(work, 'safari-legacy');
    const result = built(await buildSite('tests/fixtures/configs/everything.json', out));
    const warning = result.warnings.find((problem) => problem.code === 'W_SAFARI_LEGACY_ELSEWHERE');
    expect(warning?.path).toBe('safariWebServiceUrl');
    expect(warning?.message).toContain('https://shop.everything.example/safari-push/v2/pushPackages/web.example.everything');
    expect(warning?.message).toContain('the push-kit provider serves none of these');
    const minimal = built(await buildSite('tests/fixtures/configs/minimal.json', out));
    expect(minimal.warnings.map((problem) => problem.code)).not.toContain('W_SAFARI_LEGACY_ELSEWHERE');
  });
});
