// The `$schema` a written site config carries, so editors complete and check it: a path, relative to the
// config, to the JSON Schema the package exports.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';

const SCHEMA_EXPORT = 'push-kit/schema/site-config.schema.json';

/**
 * The schema of the push-kit installed in `projectDir` (`../node_modules/push-kit/schema/...` from
 * `site-configs/`), else that of the running push-kit, which in this repository is the repository's file.
 */
export function schemaReference(configFile: string, projectDir: string): string {
  const installed = join(projectDir, 'node_modules', SCHEMA_EXPORT);
  const schema = existsSync(installed) ? installed : createRequire(import.meta.url).resolve(SCHEMA_EXPORT);
  return relative(dirname(configFile), schema).split(sep).join('/');
}
