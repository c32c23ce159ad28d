// Reads and validates one site config file. Never throws for a bad config: problems come back as
// `ConfigProblem`s, each with its catalogue code and field path, so `validate` and `build` print
// `FILE: field.path: message`.
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { configProblem, type ConfigProblem } from './errors.ts';
import { validateConfig, type ValidatedConfig } from './validate-config.ts';

export type LoadedConfig =
  ({ ok: true; file: string; name: string } & ValidatedConfig) | { ok: false; file: string; name: string; problems: ConfigProblem[] };

/** The site's name: the config file's base name (`site-configs/calligraphy.json` -> `calligraphy`). */
export function siteNameOf(file: string): string {
  return basename(file, extname(file));
}

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/** JSON.parse's error as a problem, with the position turned into a line and column. */
function jsonProblem(text: string, error: Error): ConfigProblem {
  const message = error.message.replace(/\s*\(line \d+ column \d+\)/, '');
  const at = /at position (\d+)/.exec(message);
  if (at) {
    const reason = message.replace(/ in JSON at position \d+/, '');
    return configProblem('E_CONFIG_JSON', '(file)', { at: lineAndColumn(text, Number(at[1])), reason });
  }
  if (/Unexpected end of JSON input/.test(message)) {
    return configProblem('E_CONFIG_JSON', '(file)', { at: lineAndColumn(text, text.length), reason: 'unexpected end of input' });
  }
  return configProblem('E_CONFIG_JSON', '(file)', { reason: message });
}

export function parseConfigText(file: string, text: string): LoadedConfig {
  const name = siteNameOf(file);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, file, name, problems: [jsonProblem(text, error as Error)] };
  }
  const validated = validateConfig(raw);
  return { ...validated, file, name };
}

export async function loadConfig(file: string): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const problem =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? configProblem('E_CONFIG_NOT_FOUND', '(file)')
        : configProblem('E_CONFIG_READ', '(file)', { reason: (error as Error).message });
    return { ok: false, file, name: siteNameOf(file), problems: [problem] };
  }
  return parseConfigText(file, text);
}
