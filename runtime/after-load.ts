// The host page's `load`, awaited by push.js's chunk loading (chunk-loader.ts) and the `load` trigger (triggers.ts);
// a module of its own, so the lifecycle chunk, which watches triggers too, carries nothing of the chunk loader.

/** Resolves once the host page's `load` has fired. */
export const afterLoad = (): Promise<void> =>
  new Promise((resolve) => {
    if (document.readyState === 'complete') resolve();
    else addEventListener('load', () => resolve(), { once: true });
  });
