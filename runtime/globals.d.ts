// Build-time constants (esbuild `define`) and the generated site module; see runtime/site-module.ts.
declare const PK_FEATURES: import('./site-module.ts').SiteFeatures;
/** The site's numbers, inlined by the build (compiler/features.ts `constantDefines`). */
declare const PK_CONSTANTS: {
  /** Days the prompt stays hidden after the visitor's No (config doNotShowDays). */
  doNotShowDays: number;
};

declare module 'pushkit:site' {
  export const site: import('./site-module.ts').SiteModule;
}

/** push.js's core's copy: only the fields it reads (runtime/site-module.ts CORE_SITE_FIELDS). */
declare module 'pushkit:core-site' {
  export const site: import('./site-module.ts').CoreSiteModule;
}

declare module 'pushkit:worker-site' {
  export const workerSite: import('./site-module.ts').WorkerSiteModule;
}

/** The chunks' file names beside push.js, content-hashed, written in by the build (emit/bundle.ts). */
declare const PK_CHUNKS: {
  lifecycle: string;
};

/** The folder the site's config says push.js is served from (cdnUrl, or '/'): the chunks' when push.js cannot read its own URL. */
declare const PK_CHUNK_FOLDER: string;
