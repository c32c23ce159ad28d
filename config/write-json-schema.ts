// Writes schema/site-config.schema.json from the zod schema; `--check` fails when the file is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { siteConfigSchema } from './schema.ts';

const target = fileURLToPath(new URL('../schema/site-config.schema.json', import.meta.url));

export function siteConfigJsonSchema(): string {
  const schema = z.toJSONSchema(siteConfigSchema, { io: 'input', unrepresentable: 'any' });
  return `${JSON.stringify({ ...schema, title: 'push-kit site config' }, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const next = siteConfigJsonSchema();
  if (process.argv.includes('--check')) {
    const current = await readFile(target, 'utf8').catch(() => '');
    if (current !== next) {
      console.error('schema/site-config.schema.json is stale: run `npm run schema` and commit it.');
      process.exitCode = 1;
    } else console.log('schema/site-config.schema.json is current.');
  } else {
    await writeFile(target, next);
    console.log('wrote schema/site-config.schema.json');
  }
}
