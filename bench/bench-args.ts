// A bench's command line: `--help` prints its usage line, and an unknown option or a count that is not a whole
// number ends the run with one line naming it, before anything is started or measured.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'];

function fail(message: string, usage: string): never {
  console.error(`${message}\nusage: ${usage}`);
  process.exit(2);
}

/** The parsed options; `usage` is the bench's usage line (as its header comment gives it). */
export function benchArgs<const O extends Options>(usage: string, options: O): Values<O> {
  let parsed: { values: Record<string, unknown> };
  try {
    parsed = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true });
  } catch (error) {
    fail((error as Error).message, usage);
  }
  if (parsed.values.help) {
    console.log(`usage: ${usage}`);
    process.exit(0);
  }
  return parsed.values as Values<O>;
}

/** An option's value as a whole number of at least `min`, or a clear stop naming the option. */
export function wholeNumber(option: string, value: string | undefined, usage: string, min = 1): number {
  const number = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isInteger(number) || number < min) {
    fail(`--${option} must be a whole number of at least ${min}, got ${JSON.stringify(value ?? '')}`, usage);
  }
  return number;
}
