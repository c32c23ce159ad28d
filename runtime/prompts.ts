// The host-page prompts (spec section 2): the build-time markup inserted once, shown and hidden through the
// `hidden` attribute. Stable hooks for tests and site CSS: `#pushkit-prompts`, `[data-pk=<kind>]`,
// `[data-pk-action=yes|no|close]`, `input[data-pk-consent]`.
import { closest } from './closest.ts';
import type { PromptBundle } from './site-module.ts';

export type PromptKind = 'chicklet' | 'context' | 'subscribed' | 'blocked' | 'failed' | 'modal' | 'mobile' | 'homeScreen';
export type PromptAction = 'yes' | 'no' | 'close';

const FADE_MS = 500;

export interface Prompts {
  show_(kind: PromptKind): boolean;
  hide_(kind: PromptKind): void;
}

/** `onAction(kind, action, consent)`: consent is the checkbox state, or undefined without a checkbox. */
export function createPrompts(
  markup: PromptBundle,
  onAction: (kind: PromptKind, action: PromptAction, consent?: boolean) => void,
): Prompts {
  let container: HTMLElement | undefined;
  let focusBefore: Element | null = null;

  const root = (kind: PromptKind): HTMLElement | null => {
    if (!container) {
      container = document.createElement('div');
      container.id = 'pushkit-prompts';
      container.innerHTML = markup.html;
      try {
        // A constructed stylesheet is outside the page's Content-Security-Policy, so a strict style-src needs no
        // 'unsafe-inline'; browsers without one (Safari < 16.4, Firefox < 101) get a <style> element instead.
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(markup.css);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
      } catch {
        const style = document.createElement('style');
        style.textContent = markup.css;
        container.prepend(style);
      }
      container.addEventListener('click', (event) => {
        const button = closest(event.target, '[data-pk-action]');
        const owner = closest(button, '[data-pk]');
        if (!button || !owner) return;
        const checkbox = owner.querySelector<HTMLInputElement>('input[data-pk-consent]');
        onAction(
          owner.getAttribute('data-pk') as PromptKind,
          button.getAttribute('data-pk-action') as PromptAction,
          checkbox ? checkbox.checked : undefined,
        );
      });
      container.addEventListener('keydown', (event) => {
        const modal = container!.querySelector('[data-pk="modal"]');
        if (event.key === 'Escape' && modal && !(modal as HTMLElement).hidden) onAction('modal', 'close');
      });
      document.body.appendChild(container);
    }
    return container.querySelector<HTMLElement>('[data-pk="' + kind + '"]');
  };

  return {
    show_(kind) {
      const element = root(kind);
      if (!element) return false;
      element.style.opacity = '';
      element.hidden = false;
      if (kind === 'modal') {
        focusBefore = document.activeElement;
        const yes = element.querySelector<HTMLElement>('[data-pk-action="yes"]');
        if (yes) yes.focus();
      }
      return true;
    },
    hide_(kind) {
      const element = container && container.querySelector<HTMLElement>('[data-pk="' + kind + '"]');
      if (!element || element.hidden) return;
      if (kind !== 'modal') {
        element.hidden = true;
        return;
      }
      element.style.transition = 'opacity .5s';
      element.style.opacity = '0';
      setTimeout(() => (element.hidden = true), FADE_MS);
      // not every focusable element has focus() (MathML in older browsers): a missing one must not throw
      if (focusBefore && (focusBefore as HTMLElement).focus) (focusBefore as HTMLElement).focus();
    },
  };
}
