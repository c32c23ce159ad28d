// The build shortens internal property names (emit/mangle-props.ts). A name that crosses a boundary the
// bundler cannot see must keep its name: the sync form and the provider's replies, the worker messages, the
// JSON push.js keeps in storage, the host page's `pushkit` API, the generated site module's keys. These tests
// read those names from the declarations themselves, so a name another change adds is covered the day it lands.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSite } from '../../emit/build-site.ts';
import { CHUNK_BOUNDARY_PROPS, MANGLED_PROPS, RESERVED_PROPS } from '../../emit/mangle-props.ts';
import * as messages from '../../runtime/messages.ts';
import * as storageKeys from '../../runtime/storage-keys.ts';
import { SYNC_ACTIONS } from '../../contract/sync.ts';
import { loadConfig } from '../../config/load-config.ts';
import { siteFeatures } from '../../compiler/features.ts';
import { generateSiteModule, generateWorkerSiteModule } from '../../compiler/site-module.ts';
import { renderPrompts } from '../../emit/render-prompts.tsx';

const REPO = join(import.meta.dirname, '../..');
const EVERYTHING = join(REPO, 'tests/fixtures/configs/everything.json');

/** Files whose property names are read or written across a boundary the bundler does not see. */
const CONTRACT_FILES = [
  'contract/sync.ts',
  'contract/visitor-calls.ts',
  'contract/worker-message.ts',
  'contract/shop-order.ts',
  'contract/trigger-events.ts',
  'contract/push-payload.ts',
  'contract/notification-event.ts',
  'contract/ids.ts',
  'runtime/api.ts',
  'runtime/site-module.ts',
  'runtime/messages.ts',
  'runtime/subscription-db.ts',
  'runtime/visitor-id.ts',
];

/**
 * Every property name declared in a file (members of interfaces and type literals, object literal keys), or
 * only in the declaration of `typeName`.
 */
async function declaredPropertyNames(file: string, typeName?: string): Promise<Set<string>> {
  const source = ts.createSourceFile(file, await readFile(join(REPO, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (typeName && (ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name.text !== typeName) return;
    if (
      (ts.isPropertySignature(node) ||
        ts.isMethodSignature(node) ||
        ts.isPropertyAssignment(node) ||
        ts.isShorthandPropertyAssignment(node)) &&
      (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))
    ) {
      names.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

const willMangle = (name: string): boolean => MANGLED_PROPS.test(name) && !RESERVED_PROPS.test(name);

const out = await mkdtemp(join(tmpdir(), 'pk-mangling-'));
let pushJs = '';
let swJs = '';
beforeAll(async () => {
  const built = await buildSite(EVERYTHING, out);
  if (!built.ok) throw new Error(JSON.stringify(built.problems));
  // push.js and its chunks: what a page can load
  const files = built.files.map((file) => file.path).filter((path) => /^push(\.[\w.]+)?\.js$/.test(path));
  pushJs = (await Promise.all(files.map((path) => readFile(join(built.dir, path), 'utf8')))).join('\n');
  swJs = await readFile(join(built.dir, 'sw.js'), 'utf8');
});
afterAll(() => rm(out, { recursive: true, force: true }));

describe('property mangling of the browser bundles', () => {
  it('follows a convention no wire, storage or public API name matches', async () => {
    const offending: string[] = [];
    for (const file of CONTRACT_FILES) {
      for (const name of await declaredPropertyNames(file)) if (willMangle(name)) offending.push(`${file}: ${name}`);
    }
    expect(offending).toEqual([]);
    // The convention itself: internal names are mangled, dunder names are not.
    expect(['_sync', 'pending_'].every(willMangle)).toBe(true);
    expect(['__proto__', '_', 'subscriberId', 'cb', 'snake_case'].some(willMangle)).toBe(false);
  });

  it("pins every internal name that crosses from push.js's core into a chunk (each output is mangled on its own)", async () => {
    const crossing = [
      ...(await declaredPropertyNames('runtime/services.ts', 'RuntimeServices')),
      ...(await declaredPropertyNames('runtime/chunks/lifecycle.ts', 'LifecycleChunk')),
      ...(await declaredPropertyNames('runtime/lifecycle-runtime.ts', 'LifecycleRuntime')),
    ].filter(willMangle);
    expect([...new Set(crossing)].sort()).toEqual([...CHUNK_BOUNDARY_PROPS].sort());
  });

  it('shortens the internal names of the everything-on push.js', () => {
    // runtime/api.ts keeps the internal steps of the public API on underscored properties.
    expect(pushJs).not.toMatch(/\b_triggerOptOut\b|\b_permission\b/);
  });

  it('keeps every sync form field, API method, storage key and spec message of the everything-on push.js', async () => {
    const syncNames = await declaredPropertyNames('contract/sync.ts', 'SyncForm');
    const apiNames = await declaredPropertyNames('runtime/api.ts');
    const missing: string[] = [];
    const expectName = (name: string, where: string) => {
      // As a key (`{name:`, `,"name":`, `name(){`) or a property access (`.name`), not inside another string.
      const key = `(?:[{,]"?${name}"?:|[{,]${name}\\(|\\.${name}(?![\\w$]))`;
      if (!new RegExp(key).test(pushJs)) missing.push(`${where}: ${name}`);
    };
    for (const name of syncNames) expectName(name, 'contract/sync.ts');
    for (const name of apiNames) expectName(name, 'runtime/api.ts');
    for (const action of SYNC_ACTIONS) if (!pushJs.includes(`"${action}"`)) missing.push(`sync action ${action}`);
    // The IndexedDB record is the service worker's; every other key is push.js's.
    for (const [name, value] of Object.entries({ ...storageKeys, ...storageKeys.Key })) {
      if (typeof value === 'string' && !`${pushJs}${swJs}`.includes(`"${value}`)) missing.push(`storage key ${name}`);
    }
    for (const [name, value] of Object.entries(messages)) {
      const texts = typeof value === 'string' ? [value] : [value.status, value.message];
      for (const text of texts) if (!pushJs.includes(JSON.stringify(text).slice(1, -1))) missing.push(`message ${name}: ${text}`);
    }
    expect(missing).toEqual([]);
  });

  it('the generated site modules have no key the build would mangle', async () => {
    const loaded = await loadConfig(EVERYTHING);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    const prompts = await renderPrompts(loaded.config, siteFeatures(loaded.config, loaded.compiled));
    const sources = [generateSiteModule(loaded.config, loaded.compiled, prompts), generateWorkerSiteModule(loaded.config)];
    const keys = sources.flatMap((source) => [...source.matchAll(/(?:^|[{,\s])"?([A-Za-z_$][\w$]*)"?\s*:/gm)].map((match) => match[1]!));
    expect(keys).toContain('serverSyncUrl');
    expect(keys.filter(willMangle)).toEqual([]);
  });
});
