import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaReference } from '../../config/schema-reference.ts';

const root = resolve(import.meta.dirname, '../..');
const work = await mkdtemp(join(tmpdir(), 'pk-schema-ref-'));
afterAll(() => rm(work, { recursive: true, force: true }));

describe('schemaReference', () => {
  it("in this repository is the repository's schema file, relative to the config", () => {
    expect(schemaReference(join(root, 'site-configs', 'new.json'), root)).toBe('../schema/site-config.schema.json');
  });

  it("in a project with push-kit installed is the installed package's schema", async () => {
    const installed = join(work, 'node_modules', 'push-kit', 'schema');
    await mkdir(installed, { recursive: true });
    await writeFile(join(installed, 'site-config.schema.json'), '{}');
    expect(schemaReference(join(work, 'site-configs', 'shop.json'), work)).toBe('../node_modules/push-kit/schema/site-config.schema.json');
  });
});
