// The config rules the spec decides at build time, proven through the shipped `push-kit build` process (the bin,
// as an owner or a CI pipeline runs it) and the push.js it emits: click and shop segmentations given as JSON
// strings (section 5), a string that is not JSON read as an empty list with a warning naming the field, the
// segment condition and trigger expression languages refusing a config with the field and the column of each
// error, and the VAPID key every build needs (section 1's "missing vapid key in Edge" cannot be built).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'pk-build-command-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function buildWith(
  name: string,
  fields: Record<string, unknown>,
): Promise<{ code: number; stdout: string; stderr: string; file: string }> {
  const base = JSON.parse(await readFile(join(root, 'site-configs/calligraphy.json'), 'utf8')) as Record<string, unknown>;
  delete base.$schema;
  const file = join(work, `${name}.json`);
  await writeFile(file, JSON.stringify({ ...base, ...fields }));
  try {
    const { stdout, stderr } = await run('node', [join(root, 'bin/push-kit.js'), 'build', file, '--out', join(work, 'dist')], {
      cwd: work,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr, file };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr, file };
  }
}

/** push.js and its chunks beside it: all a page of the site can load. */
const pushJs = async (name: string) => {
  const dir = join(work, 'dist', name);
  const files = (await readdir(dir)).filter((file) => /^push(\.[\w.]+)?\.js$/.test(file));
  return (await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')))).join('\n');
};

describe('push-kit build: the config rules decided at build time', () => {
  it('a config without a VAPID key is refused, so no build can reach "missing vapid key in Edge"', async () => {
    const result = await buildWith('no-vapid-key', { vapidPublicKey: undefined });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${result.file}: vapidPublicKey: required field is missing (expected string)`);
    expect(existsSync(join(work, 'dist', 'no-vapid-key'))).toBe(false);
  }, 60_000);

  it('click and shop segmentations given as JSON strings are built as the arrays they hold', async () => {
    const result = await buildWith('json-strings', {
      clickSegmentations: JSON.stringify([{ sid: 'notify-clickers', selector: '#subscribe-button' }]),
      shopifySegmentations: JSON.stringify([{ sid: 'cart-fillers', event: 'add_cart', ss: 'cTotal > 50' }]),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const script = await pushJs('json-strings');
    expect(script).toContain('#subscribe-button');
    expect(script).toContain('notify-clickers');
    expect(script).toContain('cart-fillers');
    // the click segments' retry marker is emitted only when click segments exist
    expect(script).toContain('wingifyRetrySegment');
  }, 60_000);

  it('a segmentation string that is not JSON is read as an empty list: a warning names the field, the site still builds', async () => {
    const result = await buildWith('not-json', {
      clickSegmentations: '[{"sid": "notify-clickers", "selector": ',
      shopifySegmentations: 'buyers',
    });
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      `${result.file}: clickSegmentations: is a string that is not valid JSON: read as an empty list (warning)`,
      `${result.file}: shopifySegmentations: is a string that is not valid JSON: read as an empty list (warning)`,
    ]);
    const script = await pushJs('not-json');
    expect(script).not.toContain('notify-clickers');
    expect(script).not.toContain('wingifyRetrySegment');
  }, 60_000);

  it("Safari's legacy push: the build warns that the site must host Apple's push package service, and still builds", async () => {
    const url = 'https://push-packages.calligraphy.test/safari';
    const result = await buildWith('safari-legacy', { safariWebsitePushId: 'web.test.calligraphy', safariWebServiceUrl: url });
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      `${result.file}: safariWebServiceUrl: Safari's legacy push (macOS Safari before 16) asks ${url}/v2/pushPackages/web.test.calligraphy ` +
        `for a signed push package and reports devices to ${url}/v2/devices/... and ${url}/v2/log: the push-kit provider serves none of ` +
        `these (nor sends through APNs), so the site must host them there; Safari 16+ uses standard Web Push and needs none of it (warning)`,
    ]);
    expect(await pushJs('safari-legacy')).toContain('web.test.calligraphy');
  }, 60_000);

  it('a segment condition or trigger expression with an error refuses the config, naming the field and the column', async () => {
    const result = await buildWith('bad-expressions', {
      segmentations: [
        { sid: 1, ss: 'path == "/a" and', vn: 1 },
        { sid: 2, ss: 'visitCount >> 2', vn: 1 },
        { sid: 3, ss: 'path startsWith "/submissions"', vn: 1 },
      ],
      triggers: { when: 'delay or' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      `${result.file}: segmentations.0.ss: expected a value after "and" at column 17`,
      `${result.file}: segmentations.1.ss: expected a value after ">", found ">" at column 13`,
      `${result.file}: triggers.when: expected an event after "or" at column 9`,
    ]);
    expect(result.stdout).toContain('1 failed');
    // nothing half-written: no bundle for the refused config
    expect(existsSync(join(work, 'dist', 'bad-expressions'))).toBe(false);
  }, 60_000);
});

describe('push-kit build: output', () => {
  it("follows the umask, so a web server running as another user reads the site's folder", async () => {
    const base = JSON.parse(await readFile(join(root, 'site-configs/calligraphy.json'), 'utf8')) as Record<string, unknown>;
    delete base.$schema;
    const file = join(work, 'umask-022.json');
    await writeFile(file, JSON.stringify(base));
    const out = join(work, 'dist-umask');
    await run('sh', ['-c', `umask 022 && exec node "${join(root, 'bin/push-kit.js')}" build "${file}" --out "${out}"`], {
      cwd: work,
      timeout: 60_000,
    });
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    expect(await mode(join(out, 'umask-022'))).toBe(0o755);
    expect(await mode(join(out, 'umask-022', 'push.js'))).toBe(0o644);
    expect(await mode(join(out, 'umask-022', 'http-v4', 'css'))).toBe(0o755);
  }, 60_000);
});
