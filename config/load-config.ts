// Reads and validates one site config file. Never throws for a bad config: problems come back as
// `ConfigProblem`s, each naming the field path, so `validate` and `build` print `FILE: field.path: message`.
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { z } from 'zod';
import { siteConfigSchema, type SiteConfig } from './schema.ts';

export interface ConfigProblem {
  /** Dotted field path (`style.iconUrl`, `includeUrls.2`), or `(file)` for problems with the file itself. */
  path: string;
  message: string;
}

export type LoadedConfig =
  | { ok: true; file: string; name: string; config: SiteConfig; warnings: ConfigProblem[] }
  | { ok: false; file: string; name: string; problems: ConfigProblem[] };

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

/** JSON.parse's message with the position turned into a line and column. */
export function describeJsonError(text: string, error: Error): string {
  const message = error.message.replace(/\s*\(line \d+ column \d+\)/, '');
  const at = /at position (\d+)/.exec(message);
  if (at) return `invalid JSON at ${lineAndColumn(text, Number(at[1]))}: ${message.replace(/ in JSON at position \d+/, '')}`;
  if (/Unexpected end of JSON input/.test(message)) return `invalid JSON at ${lineAndColumn(text, text.length)}: unexpected end of input`;
  return `invalid JSON: ${message}`;
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : '(root)';
}

/** One problem per zod issue, with unknown keys named one by one. */
export function problemsOf(error: z.ZodError): ConfigProblem[] {
  return error.issues.flatMap((issue): ConfigProblem[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: fieldPath([...issue.path, key]), message: 'unknown field' }));
    }
    if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) {
      return [{ path: fieldPath(issue.path), message: `required field is missing (expected ${issue.expected})` }];
    }
    return [{ path: fieldPath(issue.path), message: issue.message }];
  });
}

function jsonStringWarnings(raw: Record<string, unknown>): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  for (const field of ['clickSegmentations', 'shopifySegmentations']) {
    const value = raw[field];
    if (typeof value !== 'string') continue;
    try {
      JSON.parse(value);
    } catch {
      warnings.push({ path: field, message: 'is a string that is not valid JSON: read as an empty list' });
    }
  }
  return warnings;
}

export function parseConfigText(file: string, text: string): LoadedConfig {
  const name = siteNameOf(file);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, file, name, problems: [{ path: '(file)', message: describeJsonError(text, error as Error) }] };
  }
  const result = siteConfigSchema.safeParse(raw);
  if (!result.success) return { ok: false, file, name, problems: problemsOf(result.error) };
  const warnings = jsonStringWarnings(raw as Record<string, unknown>);
  return { ok: true, file, name, config: result.data, warnings };
}

export async function loadConfig(file: string): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message;
    return { ok: false, file, name: siteNameOf(file), problems: [{ path: '(file)', message: reason }] };
  }
  return parseConfigText(file, text);
}

export function formatProblem(file: string, problem: ConfigProblem): string {
  return `${file}: ${problem.path}: ${problem.message}`;
}
