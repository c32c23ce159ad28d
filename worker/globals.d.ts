declare module 'pushkit:worker-site' {
  export const workerSite: import('../runtime/site-module.ts').WorkerSiteModule;
}

// runtime/storage-keys.ts, which the worker shares, reads the build's constants (runtime/globals.d.ts).
declare const PK_CONSTANTS: { doNotShowDays: number };
