// The site's colours (config style.colors) written into its stylesheets at build time: each colour replaces (or
// adds) one declaration of a named rule of templates/prompts/prompts.css (the prompts in push.js) and of
// templates/pc-iframe.css (the child window). A site without colours gets both unchanged, so the colours cost
// push.js nothing unless they are set. The values were checked to be CSS colours by the schema
// (config/css-color.ts): nothing else can reach the CSS.
import type { SiteConfig } from '../config/schema.ts';
import { emitError } from './errors.ts';

export type PromptColors = NonNullable<SiteConfig['style']['colors']>;

type Targets = Record<keyof PromptColors, Array<[selector: string, property: string]>>;

/** For each colour: the rule (its exact selector list in prompts.css) and the properties it sets there. */
const TARGETS: Targets = {
  background: [['.pk-prompt,.pk-modal', 'background']],
  text: [
    ['.pk-prompt,.pk-modal', 'color'],
    ['.pk-close', 'color'],
    ['.pk-branding', 'color'],
  ],
  yesBackground: [
    ['.pk-yes', 'background'],
    ['.pk-yes', 'border-color'],
  ],
  yesText: [['.pk-yes', 'color']],
  noBackground: [['.pk-no', 'background']],
  noText: [
    ['.pk-no', 'color'],
    ['.pk-no', 'border-color'],
  ],
};

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Sets `property: value` in the rule whose selector list is exactly `selector` (at a line or rule start); it must exist. */
function setDeclaration(css: string, selector: string, property: string, value: string): string {
  let found = false;
  const result = css.replace(new RegExp(`(^|[\\n}])${escapeRegExp(selector)}\\{([^}]*)\\}`), (_, before: string, body: string) => {
    found = true;
    const declaration = new RegExp(`(^|;)${escapeRegExp(property)}:[^;]*`);
    const next = declaration.test(body) ? body.replace(declaration, `$1${property}:${value}`) : `${body};${property}:${value}`;
    return `${before}${selector}{${next}}`;
  });
  if (!found) throw emitError('E_PROMPTS_CSS_RULE', { selector });
  return result;
}

/** The same colours in the child window's stylesheet (pc-iframe.css): its page, Allow and No. */
const CHILD_WINDOW_TARGETS: Targets = {
  background: [['.pc-window', 'background']],
  text: [
    ['body', 'color'],
    ['.pc-step', 'color'],
    ['.pc-step[aria-current]', 'color'],
    ['.pc-footer', 'color'],
  ],
  yesBackground: [
    ['.pc-allow', 'background'],
    ['.pc-allow', 'border-color'],
  ],
  yesText: [['.pc-allow', 'color']],
  noBackground: [['.pc-no', 'background']],
  noText: [
    ['.pc-no', 'color'],
    ['.pc-no', 'border-color'],
  ],
};

function applyColors(css: string, colors: PromptColors | undefined, targetsOf: Targets): string {
  let result = css;
  for (const [name, targets] of Object.entries(targetsOf) as Array<[keyof PromptColors, Targets[keyof PromptColors]]>) {
    const value = colors?.[name];
    if (value === undefined) continue;
    for (const [selector, property] of targets) result = setDeclaration(result, selector, property, value);
  }
  return result;
}

/** The prompts' stylesheet with the site's colours in place of push-kit's. */
export const applyPromptColors = (css: string, colors: PromptColors | undefined): string => applyColors(css, colors, TARGETS);

/** The child window's stylesheet with the site's colours in place of push-kit's. */
export const applyChildWindowColors = (css: string, colors: PromptColors | undefined): string =>
  applyColors(css, colors, CHILD_WINDOW_TARGETS);
