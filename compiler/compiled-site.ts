// What validation compiles from a site config's expressions, once (config/compile-expressions.ts), and the
// site module is generated from: URL pattern lists as RegExps, conditions as predicate sources, trigger events.
export interface CompiledSite {
  /** includeUrls as one anchored RegExp; undefined for an empty list. */
  include: RegExp | undefined;
  /** excludeUrls as one anchored RegExp; undefined for an empty list. */
  exclude: RegExp | undefined;
  /** The trigger events any one of which shows the prompt (every and/or read as or). */
  triggerEvents: string[];
  /** Trigger events segment conditions name that triggerEvents does not: watched for the conditions only. */
  segmentEvents: string[];
  /** The JS source of each `segmentations` entry's `(c) => boolean`, in order. */
  segmentTests: string[];
  /** The same for each `shopifySegmentations` entry; `()=>true` for one without a condition. */
  shopSegmentTests: string[];
}
