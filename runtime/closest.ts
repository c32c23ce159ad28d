// Event targets of the host page may be text nodes, documents or windows, which have no `closest`.

/** The nearest ancestor-or-self of `target` matching `selector`, or null; throws on an invalid selector. */
export const closest = (target: EventTarget | null, selector: string): Element | null =>
  target && (target as Element).closest ? (target as Element).closest(selector) : null;

/**
 * Calls `fn` on each `type` event (capture phase, on the document) whose target is or is inside an element matching
 * `selector`; every such event without a selector. An invalid selector matches nothing, and never breaks the host
 * page's events.
 */
export const onMatch = (type: string, selector: string | undefined, fn: () => void): void =>
  document.addEventListener(
    type,
    (event) => {
      try {
        if (!selector || closest(event.target, selector)) fn();
      } catch {
        // An invalid selector must not break the host page's clicks.
      }
    },
    true,
  );
