// Errors the CLI knows: printed as their message (no stack) with exit code 1; anything else is a bug and
// prints its stack.
import { ServerError } from '../server/errors.ts';

export class CliError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A provider that cannot start (no sites, no database, port taken) is the user's to fix: printed, no stack. */
export function fromServerError(error: unknown): never {
  if (error instanceof ServerError) throw new CliError(error.message, error.code);
  throw error;
}
