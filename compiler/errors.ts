// The compiler's error catalogue (as Workbox keys its messages): every way the condition language, trigger
// expressions and URL patterns refuse an input, by a stable code that tests and tools match on, with its message.
import { defineCatalogue, type DetailsOf } from '../contract/catalogue.ts';

const messages = {
  E_CONDITION_UNEXPECTED_CHARACTER: ({ character }: { character: string }) => `unexpected character ${JSON.stringify(character)}`,
  E_CONDITION_INVALID_NUMBER: ({ text }: { text: string }) => `invalid number "${text}"`,
  E_CONDITION_UNKNOWN_ESCAPE: ({ escape }: { escape: string }) => `unknown escape "\\${escape}" in string`,
  E_CONDITION_UNTERMINATED_STRING: () => 'unterminated string',
  E_CONDITION_EXPECTED_CONDITION: () => 'expected a condition',
  E_CONDITION_EXPECTED_VALUE: ({ after, found }: { after: string; found?: string }) =>
    found === undefined ? `expected a value after ${after}` : `expected a value after ${after}, found ${found}`,
  E_CONDITION_UNCLOSED_PARENTHESIS: ({ open, found }: { open: number; found: string }) =>
    `expected ")" to close "(" at column ${open}, found ${found}`,
  E_CONDITION_UNEXPECTED_TOKEN: ({ token }: { token: string }) => `unexpected ${token}`,
  E_CONDITION_UNKNOWN_VARIABLE: ({ name }: { name: string }) => `unknown variable ${JSON.stringify(name)}`,
  E_CONDITION_NAME_REQUIRED: ({ map, example }: { map: string; example: string }) => `"${map}" needs a name, as in ${map}.${example}`,
  E_CONDITION_MATCHES_NEEDS_PATTERN: () => '"matches" needs a quoted regular expression after it',
  E_CONDITION_INVALID_REGEX: ({ reason }: { reason: string }) => `invalid regular expression: ${reason}`,
  E_CONDITION_BOOLEAN_ORDER: ({ operator }: { operator: string }) => `"${operator}" cannot compare true/false values`,
  E_CONDITION_NEEDS_TEXT: ({ operator }: { operator: string }) =>
    `"${operator}" needs text on both sides; to negate it write not (... ${operator} ...)`,
  // audience rules (server/audiences): the same language, read in SQL over what the provider stores
  E_CONDITION_NOT_IN_AUDIENCE: ({ operator }: { operator: string }) =>
    `"${operator}" is not available in an audience rule; use contains, startsWith or endsWith`,
  E_CONDITION_CAMPAIGN_NUMBER: ({ map }: { map: string }) => `"${map}" needs a campaign number, as in ${map}.12`,
  E_CONDITION_UNKNOWN_AUTOMATION: ({ name, known }: { name: string; known: string }) =>
    `no automation ${JSON.stringify(name)}; automations are ${known}`,

  E_TRIGGER_EXPECTED_EVENT: ({ after }: { after?: string }) =>
    after === undefined ? 'expected an event name' : `expected an event after "${after}"`,
  E_TRIGGER_UNCLOSED_PARENTHESIS: ({ open }: { open: number }) => `expected ")" to close "(" at column ${open}`,
  E_TRIGGER_UNEXPECTED: ({ token, after }: { token: string; after?: string }) =>
    after === undefined ? `unexpected "${token}"` : `expected an event after "${after}", found "${token}"`,
  E_TRIGGER_UNKNOWN_EVENT: ({ name, known }: { name: string; known: readonly string[] }) =>
    `unknown trigger event "${name}" (known: ${known.join(', ')})`,

  E_URL_PATTERN_EMPTY_REGEX: ({ pattern }: { pattern: string }) => `URL pattern "${pattern}" has an empty regular expression`,
  E_URL_PATTERN_GROUPS: ({ pattern }: { pattern: string }) =>
    `URL pattern "${pattern}" must not use backreferences or named groups (patterns are combined into one RegExp)`,
  E_URL_PATTERN_INVALID_REGEX: ({ pattern, reason }: { pattern: string; reason: string }) =>
    `URL pattern "${pattern}" is not a valid regular expression: ${reason}`,
  E_URL_PATTERN_EMPTY_CONTAINS: ({ pattern }: { pattern: string }) => `URL pattern "${pattern}" has nothing after "contains:"`,
  E_URL_PATTERN_FORM: ({ pattern }: { pattern: string }) =>
    `URL pattern "${pattern}" must be "*", start with "/" or "http(s)://", or use "contains:" or "regex:"`,
  E_PATTERN_BACKTRACKING: ({ pattern, part }: { pattern: string; part: string }) =>
    `URL pattern "${pattern}" can take exponential time on a crafted URL: "${part}" repeats nested or overlapping quantifiers (one text matched in more than one way); rewrite it so each character can match only one way, e.g. (x+)+ as x+`,
};

const COMPILER_ERRORS = defineCatalogue(messages);

export type CompilerErrorCode = keyof typeof messages;
export type ConditionErrorCode = Extract<CompilerErrorCode, `E_CONDITION_${string}`>;
export type TriggerErrorCode = Extract<CompilerErrorCode, `E_TRIGGER_${string}`>;
export type UrlPatternErrorCode = Extract<CompilerErrorCode, `E_URL_PATTERN_${string}` | 'E_PATTERN_BACKTRACKING'>;

/** What a code's message is filled with (nothing for most). */
export type CompilerErrorDetails<C extends CompilerErrorCode> = DetailsOf<typeof messages, C>;

/** The catalogue's message for `code`, filled with its details. */
export function compilerMessage<C extends CompilerErrorCode>(code: C, ...details: CompilerErrorDetails<C>): string {
  return COMPILER_ERRORS.message(code, ...details);
}

/** A URL pattern that cannot be compiled. */
export interface UrlPatternProblem {
  code: UrlPatternErrorCode;
  message: string;
}
