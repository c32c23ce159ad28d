// Tokenizer of the segment condition language (docs/conditions.md). Columns are 1-based.
import { conditionFailure } from './condition-failure.ts';

export type Token =
  | { kind: 'string'; value: string; column: number; text: string }
  | { kind: 'number'; value: number; column: number; text: string }
  | { kind: 'name'; value: string; column: number; text: string }
  | { kind: 'op'; value: string; column: number; text: string }
  | { kind: 'end'; value: ''; column: number; text: '' };

const OPERATORS = ['==', '!=', '<=', '>=', '<', '>', '(', ')'];
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', n: '\n', t: '\t', r: '\r' };
const NAME_START = /[A-Za-z_$]/;
const NAME_PART = /[A-Za-z0-9_$.-]/;

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    const column = i + 1;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '"') {
      const end = readString(source, i);
      tokens.push({ kind: 'string', value: end.value, column, text: source.slice(i, end.next) });
      i = end.next;
    } else if (/[0-9]/.test(ch) || (ch === '-' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const match = /^-?[0-9]+(?:\.[0-9]+)?/.exec(source.slice(i))![0];
      if (NAME_START.test(source[i + match.length] ?? ''))
        throw conditionFailure('E_CONDITION_INVALID_NUMBER', column, { text: `${match}${source[i + match.length]}` });
      tokens.push({ kind: 'number', value: Number(match), column, text: match });
      i += match.length;
    } else if (NAME_START.test(ch)) {
      let end = i + 1;
      while (end < source.length && NAME_PART.test(source[end]!)) end++;
      const text = source.slice(i, end);
      tokens.push({ kind: 'name', value: text, column, text });
      i = end;
    } else {
      const op = OPERATORS.find((candidate) => source.startsWith(candidate, i));
      if (!op) throw conditionFailure('E_CONDITION_UNEXPECTED_CHARACTER', column, { character: ch });
      tokens.push({ kind: 'op', value: op, column, text: op });
      i += op.length;
    }
  }
  tokens.push({ kind: 'end', value: '', column: source.length + 1, text: '' });
  return tokens;
}

function readString(source: string, start: number): { value: string; next: number } {
  let value = '';
  let i = start + 1;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '"') return { value, next: i + 1 };
    if (ch === '\\') {
      const escape = source[i + 1];
      if (escape === 'u' && /^[0-9A-Fa-f]{4}$/.test(source.slice(i + 2, i + 6))) {
        value += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      const decoded = escape === undefined ? undefined : ESCAPES[escape];
      if (decoded === undefined) {
        if (escape === undefined) break;
        throw conditionFailure('E_CONDITION_UNKNOWN_ESCAPE', i + 1, { escape });
      }
      value += decoded;
      i += 2;
      continue;
    }
    value += ch;
    i++;
  }
  throw conditionFailure('E_CONDITION_UNTERMINATED_STRING', start + 1);
}
