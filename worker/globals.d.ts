declare module 'pushkit:worker-site' {
  export const workerSite: import('../runtime/site-module.ts').WorkerSiteModule;
}
