// The build's error catalogue (as Workbox keys its messages): what can stop a valid config from building, by
// a stable code that tests and tools match on, with its message. A build problem's path is `(build)`.
import { defineCatalogue, type DetailsOf } from '../contract/catalogue.ts';

const messages = {
  E_BUNDLE_NO_OUTPUT: ({ entry }: { entry: string }) => `esbuild produced no output for ${entry}`,
  E_MANIFEST_JSON: ({ reason }: { reason: string }) => `manifest.json template produced invalid JSON: ${reason}`,
  E_PROMPTS_CSS_TRAILING_TEXT: ({ text }: { text: string }) => `prompts CSS: text after the last rule: ${text}`,
  E_PROMPTS_CSS_UNCLOSED: ({ prelude }: { prelude: string }) => `prompts CSS: unclosed block after "${prelude}"`,
  E_PROMPTS_CSS_RULE: ({ selector }: { selector: string }) => `prompts CSS: no rule "${selector}" to set the site's colours in`,
  /** Anything else that stopped the build: esbuild, a template, the file system. */
  E_BUILD: ({ reason }: { reason: string }) => reason,
};

const EMIT_ERRORS = defineCatalogue(messages);

export type EmitErrorCode = keyof typeof messages;

export class EmitError extends Error {
  constructor(
    readonly code: EmitErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EmitError';
  }
}

export function emitError<C extends EmitErrorCode>(code: C, ...details: DetailsOf<typeof messages, C>): EmitError {
  return new EmitError(code, EMIT_ERRORS.message(code, ...details));
}
