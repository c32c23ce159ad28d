// Event targets of the host page may be text nodes, documents or windows, which have no `closest`.

/** The nearest ancestor-or-self of `target` matching `selector`, or null; throws on an invalid selector. */
export const closest = (target: EventTarget | null, selector: string): Element | null =>
  target && (target as Element).closest ? (target as Element).closest(selector) : null;
