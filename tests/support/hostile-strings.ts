// Arbitraries of hostile text for the property-*.test.ts files: characters and snippets that end strings,
// comments, scripts or lines in the places a config string lands (JS literals, regexes, HTML, JSON).
import fc from 'fast-check';

export const HOSTILE_SNIPPETS = [
  '"',
  "'",
  '`',
  '${x}',
  '\\',
  '\\u2028',
  '*/',
  '/*',
  '//',
  '</script>',
  '</SCRIPT ',
  '<script>alert(1)</script>',
  '<!--',
  '-->',
  '<img src=x onerror=alert(1)>',
  '&amp;',
  '&#x27;',
  '{{x}}',
  '{{{x}}}',
  ']]>',
  '\u2028',
  '\u2029',
  '\u0000',
  '\r\n',
  '\ud800',
  '\udfff',
  '😀',
  'é',
  '\u202e',
  '\ufeff',
  '});alert(1);({',
  '__proto__',
  '=',
  '<',
  '>',
  '&',
  '/',
];

/** One UTF-16 code unit anywhere in 0..0xFFFF, so lone surrogates and control characters come up. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

/** Text made of hostile snippets, printable ASCII and arbitrary code units, up to `maxParts` pieces. */
export function hostileString(maxParts: number, minParts = 0): fc.Arbitrary<string> {
  const piece = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_SNIPPETS) },
    { weight: 3, arbitrary: fc.string({ maxLength: 4 }) },
    { weight: 1, arbitrary: anyUnit },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) },
  );
  return fc.array(piece, { minLength: minParts, maxLength: maxParts }).map((parts) => parts.join(''));
}

/** A string with no lone surrogate and no control character but tab and newline: displayable text. */
export function isDisplayText(value: string): boolean {
  if (/[\uD800-\uDFFF]/u.test(value)) return false; // with the u flag only an unpaired surrogate matches
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if ((code < 0x20 && ch !== '\t' && ch !== '\n') || (code >= 0x7f && code <= 0x9f)) return false;
  }
  return true;
}
