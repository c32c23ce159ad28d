// Drops the prompt stylesheet's rules that cannot match the markup a site is built with (a site without the
// branding modal carries no modal CSS), and the line breaks between rules.
import { emitError } from './errors.ts';

const CLASS_ATTRIBUTE = /\bclass="([^"]*)"/g;
const CLASS_SELECTOR = /\.(-?[_a-zA-Z][\w-]*)/g;

interface Block {
  prelude: string;
  body: string;
}

/** Top-level blocks `prelude{body}`; a body keeps its nested blocks (as in @keyframes). */
function topLevelBlocks(css: string): Block[] {
  const blocks: Block[] = [];
  const source = css.replace(/\/\*[\s\S]*?\*\//g, '');
  let start = 0;
  while (start < source.length) {
    const open = source.indexOf('{', start);
    if (open < 0) {
      if (source.slice(start).trim()) throw emitError('E_PROMPTS_CSS_TRAILING_TEXT', { text: source.slice(start).trim().slice(0, 40) });
      break;
    }
    let depth = 1;
    let index = open + 1;
    for (; index < source.length && depth > 0; index += 1) {
      if (source[index] === '{') depth += 1;
      else if (source[index] === '}') depth -= 1;
    }
    if (depth > 0) throw emitError('E_PROMPTS_CSS_UNCLOSED', { prelude: source.slice(start, open).trim() });
    blocks.push({ prelude: source.slice(start, open).trim(), body: source.slice(open + 1, index - 1).trim() });
    start = index;
  }
  return blocks;
}

function classesOf(markup: string): Set<string> {
  const classes = new Set<string>();
  for (const [, list] of markup.matchAll(CLASS_ATTRIBUTE)) for (const name of list!.split(/\s+/)) if (name) classes.add(name);
  return classes;
}

/** The rules of `css` that can apply to `markup`: selectors naming a class the markup never uses are dropped. */
export function pruneCss(css: string, markup: string): string {
  const classes = classesOf(markup);
  const blocks = topLevelBlocks(css);
  const rules: string[] = [];
  for (const { prelude, body } of blocks) {
    if (prelude.startsWith('@')) continue;
    const selectors = prelude
      .split(',')
      .map((selector) => selector.trim())
      .filter((selector) => [...selector.matchAll(CLASS_SELECTOR)].every(([, name]) => classes.has(name!)));
    if (selectors.length) rules.push(`${selectors.join(',')}{${body}}`);
  }
  const kept = rules.join('');
  const atRules = blocks.filter(({ prelude }) => {
    if (!prelude.startsWith('@')) return false;
    const keyframes = /^@(?:-webkit-)?keyframes\s+([\w-]+)$/.exec(prelude);
    return !keyframes || new RegExp(`[:\\s,]${keyframes[1]}\\b`).test(kept);
  });
  return kept + atRules.map(({ prelude, body }) => `${prelude}{${body}}`).join('');
}
