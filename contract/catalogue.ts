// How every layer declares its keyed error catalogue (config, compiler, emit, server, cli): a record of codes,
// each a message template (a function of the details it names) or an entry holding one beside what the layer
// adds (the server's HTTP status, the command line's exit code). Codes cross the wires (a reply's `code`, a
// condition error's `code`), so tests and tools match on codes while messages stay free to read well.

/** A message template: no details, or one object of them. */
export type MessageTemplate = (...details: never[]) => string;
export type CatalogueEntry = MessageTemplate | { message: MessageTemplate };

type TemplateOf<E> = E extends MessageTemplate ? E : E extends { message: infer M extends MessageTemplate } ? M : never;

/** The details a code's template is filled with, as the rest parameters of `message(code, ...)`. */
export type DetailsOf<T extends Record<string, CatalogueEntry>, C extends keyof T> = Parameters<TemplateOf<T[C]>>;

export interface Catalogue<T extends Record<string, CatalogueEntry>> {
  readonly entries: T;
  message<C extends keyof T & string>(code: C, ...details: DetailsOf<T, C>): string;
}

export function defineCatalogue<T extends Record<string, CatalogueEntry>>(entries: T): Catalogue<T> {
  return {
    entries,
    message(code, ...details) {
      const entry: CatalogueEntry = entries[code]!;
      const template = (typeof entry === 'function' ? entry : entry.message) as (...args: unknown[]) => string;
      return template(...details);
    },
  };
}
