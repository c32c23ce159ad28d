// Errors the CLI knows: printed as their message (no stack) with exit code 1; anything else is a bug and
// prints its stack.
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
