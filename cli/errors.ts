// The command line's error catalogue: every error a command stops with, by code, with its message and the
// process exit code (README, "Exit codes"). The entry (index.ts) prints a CliError as `push-kit: <message>`,
// with no stack unless --debug is given; any other error is a bug and prints its stack.
import { defineCatalogue, type DetailsOf } from '../contract/catalogue.ts';
import { causeChain, isServerError, ServerError, type ServerErrorCode } from '../server/errors.ts';

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

/** The provider's own message (server/errors.ts), for failures only the provider's catalogue words. */
const fromProvider = ({ problem }: { problem: string }) => problem;

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
  E_SITE_EXISTS: {
    exit: EXIT.INVALID_INPUT,
    message: ({ file }: { file: string }) => `${file} already exists; pass --force to overwrite it`,
  },
  E_ARGUMENT: {
    exit: EXIT.INVALID_INPUT,
    message: ({ option, rule }: { option: string; rule: string }) => `--${option}: ${rule}`,
  },
  E_SITE: { exit: EXIT.INVALID_INPUT, message: fromProvider },
  E_CAMPAIGN: { exit: EXIT.INVALID_INPUT, message: ({ problem }: { problem: string }) => problem },
  E_SEGMENT: { exit: EXIT.INVALID_INPUT, message: fromProvider },
  E_KEY_MISMATCH: { exit: EXIT.INVALID_INPUT, message: fromProvider },
  E_KEY_READ: { exit: EXIT.ENVIRONMENT, message: fromProvider },
  E_DATABASE: {
    exit: EXIT.ENVIRONMENT,
    message: ({ database, reason, hint }: { database?: string; reason: string; hint?: string }) =>
      `cannot open the database${database === undefined ? '' : ` ${database}`}: ${reason}${hint === undefined ? '' : `\n  ${hint}`}`,
  },
  E_STATE_NOT_PRIVATE: { exit: EXIT.ENVIRONMENT, message: fromProvider },
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
  E_FILE_READ: {
    exit: EXIT.INVALID_INPUT,
    message: ({ file, reason }: { file: string; reason: string }) => `cannot read ${file}: ${reason}`,
  },
  E_IMPORT: { exit: EXIT.INVALID_INPUT, message: fromProvider },
  E_VAPID_KEY: { exit: EXIT.INVALID_INPUT, message: fromProvider },
  E_CONFIG_WRITE: { exit: EXIT.ENVIRONMENT, message: fromProvider },
  E_WEBHOOK: { exit: EXIT.INVALID_INPUT, message: fromProvider },
  E_PROVIDER_REPLY: {
    exit: EXIT.ENVIRONMENT,
    message: () => 'the provider sent no campaign progress',
  },
};

const CLI_ERRORS = defineCatalogue(catalogue);

export type CliErrorCode = keyof typeof catalogue;
type Details<C extends CliErrorCode> = DetailsOf<typeof catalogue, C>;

export function cliMessage<C extends CliErrorCode>(code: C, ...details: Details<C>): string {
  return CLI_ERRORS.message(code, ...details);
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

/** How a failure of the provider's catalogue (server/errors.ts) reads on the command line: its exit code's
 * category, and the option a setting's failure is about. Codes not listed are not the user's to fix: a bug. */
const FROM_SERVER: Partial<Record<ServerErrorCode, { code: CliErrorCode; option?: string }>> = {
  E_NO_SITES: { code: 'E_NO_SITES' },
  E_LISTEN: { code: 'E_LISTEN' },
  E_DATABASE_OPEN: { code: 'E_DATABASE' },
  E_DATABASE_IN_USE: { code: 'E_DATABASE' },
  E_STATE_NOT_PRIVATE: { code: 'E_STATE_NOT_PRIVATE' },
  E_PUSH_SERVICES_SETTING: { code: 'E_ARGUMENT', option: 'push-services' },
  E_EVENT_RETENTION_SETTING: { code: 'E_ARGUMENT', option: 'event-retention-days' },
  E_CLAIM_LEASE_SETTING: { code: 'E_ARGUMENT' },
  E_SITE_NAME_UNKNOWN: { code: 'E_SITE', option: 'site' },
  E_SEGMENT_UNKNOWN: { code: 'E_SEGMENT' },
  E_SUBSCRIBER_UNKNOWN: { code: 'E_ARGUMENT' },
  E_CAMPAIGN_UNKNOWN: { code: 'E_CAMPAIGN' },
  E_CAMPAIGN_NOT_CANCELLABLE: { code: 'E_CAMPAIGN' },
  E_PARAM_INVALID: { code: 'E_ARGUMENT' },
  E_PARAM_MISSING: { code: 'E_ARGUMENT' },
  E_VAPID_KEY_READ: { code: 'E_KEY_READ' },
  E_VAPID_KEY_MISMATCH: { code: 'E_KEY_MISMATCH' },
  E_IMPORT_FORMAT: { code: 'E_IMPORT' },
  E_IMPORT_PARAM: { code: 'E_IMPORT' },
  E_VAPID_KEY_INVALID: { code: 'E_IMPORT' },
  E_VAPID_KEY_UNKNOWN: { code: 'E_VAPID_KEY' },
  E_VAPID_KEY_CURRENT: { code: 'E_VAPID_KEY' },
  E_VAPID_KEY_IN_USE: { code: 'E_VAPID_KEY' },
  E_SITE_CONFIG_WRITE: { code: 'E_CONFIG_WRITE' },
  E_WEBHOOK_URL: { code: 'E_WEBHOOK' },
  E_WEBHOOK_UNKNOWN: { code: 'E_WEBHOOK' },
  E_WEBHOOK_MESSAGE_UNKNOWN: { code: 'E_WEBHOOK' },
  E_WEBHOOK_ENDPOINTS_MAX: { code: 'E_WEBHOOK' },
  E_WEBHOOK_SETTING: { code: 'E_ARGUMENT', option: 'webhook-private-origins' },
  E_FEED_SETTING: { code: 'E_ARGUMENT', option: 'allow-feed-hosts' },
  // a site config's feed the provider's rules refuse: `FILE: feeds.N.url: why`, and serve does not start
  E_CONFIG_FEED: { code: 'E_SITE' },
  E_TEAM_MEMBER_UNKNOWN: { code: 'E_ARGUMENT' },
  E_MEMBER_LAST_OWNER: { code: 'E_ARGUMENT' },
  E_MEMBERS_MAX: { code: 'E_ARGUMENT' },
};

/**
 * A provider failure the user can fix (no sites, no database, a port taken, an unknown site, segment or
 * campaign) as the CliError that prints it, with no stack; `advice` adds a line for a database another
 * process holds. Anything else is thrown on as it is.
 */
export function fromServerError(error: unknown, advice?: { databaseInUse?: string }): never {
  if (error instanceof ServerError) {
    const mapped = FROM_SERVER[error.code as ServerErrorCode];
    if (mapped) {
      const hint = advice?.databaseInUse && isDatabaseInUse(error) ? `\n  ${advice.databaseInUse}` : '';
      throw new CliError(mapped.code, `${mapped.option ? `--${mapped.option}: ` : ''}${error.message}${hint}`);
    }
  }
  throw error;
}

/** Whether the failure (or what caused it) is the embedded database held by another process. */
export function isDatabaseInUse(error: unknown): boolean {
  return [...causeChain(error)].some((current) => isServerError(current, 'E_DATABASE_IN_USE'));
}
