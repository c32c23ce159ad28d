import { formatProblem } from '../../config/errors.ts';
import { loadConfig } from '../../config/load-config.ts';

/** Exit 0 when every config is valid; otherwise 1, with one `FILE: field.path: message` line per problem. */
export async function runValidate(files: string[]): Promise<number> {
  let failed = false;
  for (const file of files) {
    const loaded = await loadConfig(file);
    if (!loaded.ok) {
      failed = true;
      for (const problem of loaded.problems) console.error(formatProblem(file, problem));
      continue;
    }
    for (const warning of loaded.warnings) console.warn(`${formatProblem(file, warning)} (warning)`);
    console.log(`${file}: valid`);
  }
  return failed ? 1 : 0;
}
