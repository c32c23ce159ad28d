import { describe, expect, it } from 'vitest';
import { pruneCss } from '../../emit/prune-css.ts';

const CSS = `
/* prompt boxes */
.pk-prompt,.pk-modal{color:#000}
.pk-prompt[hidden]{display:none}
.pk-backdrop{animation:pk-fade .5s}
.pk-mobile .pk-close{position:static}
@keyframes pk-fade{from{opacity:0}to{opacity:1}}
`;

describe('pruneCss', () => {
  it('keeps the selectors whose classes the markup uses and drops the rest of a selector list', () => {
    const css = pruneCss(CSS, '<div class="pk-prompt pk-chicklet"><button class="pk-close">x</button></div>');
    expect(css).toBe('.pk-prompt{color:#000}.pk-prompt[hidden]{display:none}');
  });

  it('keeps a keyframes rule only while a kept rule animates with it', () => {
    expect(pruneCss(CSS, '<div class="pk-backdrop"></div>')).toContain('@keyframes pk-fade{');
    expect(pruneCss(CSS, '<div class="pk-prompt"></div>')).not.toContain('@keyframes');
  });

  it('keeps descendant selectors only when every class in them is used', () => {
    expect(pruneCss(CSS, '<div class="pk-mobile"><button class="pk-close"></button></div>')).toContain(
      '.pk-mobile .pk-close{position:static}',
    );
  });

  it('refuses a stylesheet with an unclosed block rather than emitting half of it', () => {
    expect(() => pruneCss('.pk-prompt{color:red', '<div class="pk-prompt"></div>')).toThrow(/unclosed block after "\.pk-prompt"/);
  });
});
