// The command line's error catalogue: every error a command stops with, by code, with its message and the
// process exit code (README, "Exit codes"). The entry (index.ts) prints a CliError as `push-kit: <message>`,
// with no stack unless --debug is given; any other error is a bug and prints its stack.
import { ServerError } from '../server/errors.ts';

/** Exit codes of `push-kit`; 0 is success. */
export const EXIT = {
  /** The input is wrong: a config, an answers file, an option's value, a site or segment that does not exist. */
  INVALID_INPUT: 1,
  /** The command line itself is wrong: an unknown command or option, a missing argument. */
  USAGE: 2,
  /** The environment stopped the command: a port in use, a database or provider that cannot be reached. */
  ENVIRONMENT: 3,
  /** An unexpected error: a bug in push-kit. */
  INTERNAL: 70,
} as const;

type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const catalogue = {
  E_DUPLICATE_SITE_NAME: {
    exit: EXIT.INVALID_INPUT,
    message: ({ first, name, out }: { first: string; name: string; out: string }) =>
      `${first} is also named "${name}" and both would build into ${out}/${name}`,
  },
  E_NO_SITES: {
    exit: EXIT.INVALID_INPUT,
    message: ({ globs }: { globs: string[] }) => `no valid site config matches ${globs.join(' ')}`,
  },
  E_SITE_NOT_HOSTABLE: {
    exit: EXIT.INVALID_INPUT,
    message: ({ problems }: { problems: string }) => problems,
  },
  E_ARGUMENT: {
    exit: EXIT.INVALID_INPUT,
    message: ({ option, rule }: { option: string; rule: string }) => `--${option}: ${rule}`,
  },
  E_SITE: {
    exit: EXIT.INVALID_INPUT,
    message: ({ site, known }: { site: string; known: string }) => `--site: no valid site config named "${site}" (sites: ${known})`,
  },
  E_CAMPAIGN: {
    exit: EXIT.INVALID_INPUT,
    message: ({ problem }: { problem: string }) => problem,
  },
  E_SEGMENT: {
    exit: EXIT.INVALID_INPUT,
    message: ({ segment, site }: { segment: string; site: string }) => `--segment: no segment "${segment}" on site ${site}`,
  },
  E_KEY_MISMATCH: {
    exit: EXIT.INVALID_INPUT,
    message: ({ keyFile, configFile }: { keyFile: string; configFile: string }) =>
      `${keyFile} is not the key pair of ${configFile}'s vapidPublicKey: subscribers would refuse its messages`,
  },
  E_KEY_READ: {
    exit: EXIT.ENVIRONMENT,
    message: ({ keyFile, reason }: { keyFile: string; reason: string }) => `cannot read the site's private VAPID key ${keyFile}: ${reason}`,
  },
  E_DATABASE: {
    exit: EXIT.ENVIRONMENT,
    message: ({ database, reason, hint }: { database?: string; reason: string; hint?: string }) =>
      `cannot open the database${database === undefined ? '' : ` ${database}`}: ${reason}${hint === undefined ? '' : `\n  ${hint}`}`,
  },
  E_LISTEN: {
    exit: EXIT.ENVIRONMENT,
    message: ({ address, reason }: { address: string; reason: string }) => `cannot listen on ${address}: ${reason}`,
  },
  E_PORT_IN_USE: {
    exit: EXIT.ENVIRONMENT,
    message: ({ port, flag }: { port: number; flag: string }) => `port ${port} is in use: choose another with --${flag}`,
  },
  E_PROVIDER_UNREACHABLE: {
    exit: EXIT.ENVIRONMENT,
    message: ({ provider, reason }: { provider: string; reason: string }) => `cannot reach the provider at ${provider}: ${reason}`,
  },
  E_PROVIDER_REFUSED: {
    exit: EXIT.INVALID_INPUT,
    message: ({ reason }: { reason: string }) => `the provider refused: ${reason}`,
  },
  E_PROVIDER_REPLY: {
    exit: EXIT.ENVIRONMENT,
    message: () => 'the provider sent no campaign progress',
  },
};

export type CliErrorCode = keyof typeof catalogue;
type Details<C extends CliErrorCode> = Parameters<(typeof catalogue)[C]['message']>;

export function cliMessage<C extends CliErrorCode>(code: C, ...details: Details<C>): string {
  return (catalogue[code].message as (...args: Details<C>) => string)(...details);
}

/** An error the command line knows: printed as `push-kit: <message>` and ending the process with its exit code. */
export class CliError extends Error {
  readonly exitCode: ExitCode;

  constructor(
    readonly code: CliErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
    this.exitCode = catalogue[code].exit;
  }
}

export function cliError<C extends CliErrorCode>(code: C, ...details: Details<C>): CliError {
  return new CliError(code, cliMessage(code, ...details));
}

/** A provider that cannot start (no sites, no database, port taken) is the user's to fix: printed, no stack. */
export function fromServerError(error: unknown): never {
  if (error instanceof ServerError) {
    if (error.code === 'E_NO_SITES') throw new CliError('E_NO_SITES', error.message);
    if (error.code === 'E_LISTEN') throw new CliError('E_LISTEN', error.message);
    if (error.code === 'E_DATABASE_OPEN') throw new CliError('E_DATABASE', error.message);
    if (error.code === 'E_PUSH_SERVICES_SETTING') throw new CliError('E_ARGUMENT', `--push-services: ${error.message}`);
    if (error.code === 'E_EVENT_RETENTION_SETTING') throw new CliError('E_ARGUMENT', `--event-retention-days: ${error.message}`);
  }
  throw error;
}
