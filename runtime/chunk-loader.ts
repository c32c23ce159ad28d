// push.js's second stage: chunks are files beside push.js (one IIFE each, content-hashed names written into the
// core by the build), loaded by a script element relative to push.js's own URL, never before the host page's
// `load`. A chunk hands its exports to the element that loaded it (document.currentScript), so it adds no
// global. A script element needs nothing of a Content-Security-Policy that push.js itself does not (the same
// origin in script-src; under 'strict-dynamic' a script push.js adds is trusted; a nonce is copied over).

/** The property of the loading script element that a chunk calls with its exports. */
export interface ChunkScript extends HTMLScriptElement {
  pushkitChunk?: (exports: unknown) => void;
}

import type { Transport } from './create-services.ts';
import { afterLoad } from './after-load.ts';
import { safely } from './storage.ts';

/**
 * Loads the chunk `file` (after the page's load) and resolves its exports; rejects when it cannot be run. The element
 * is made at the call and added to the page after its load: what DevTools records of the stack that starts the fetch
 * (the initiator) is then one small function, not the promise's executor and the function around it.
 */
export const loadChunk = <T>(file: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const script = document.createElement('script') as ChunkScript;
    script.pushkitChunk = (exports) => {
      // ran: its load event calls nothing (the call, and an Error's stack recorded under DevTools, cost 0.1 ms)
      script.onload = null;
      resolve(exports as T);
    };
    // a file that loaded but did not run (not our chunk), or did not load
    script.onload = script.onerror = () => reject(Error(file));
    void afterLoad().then(() => {
      // push.js's folder (its URL up to the last slash before a query or fragment), from an Error's stack: a microtask's,
      // whose frames are this function and the two small ones it calls, so only they are re-parsed for their positions;
      // Chromium, Firefox and Safari each print a frame's script URL whole. Not `document.currentScript` while push.js
      // runs: the page's first element wrapper costs 1-2 ms of CPU, and an in-sync view loads no chunk (issue 34, round
      // fourteen). A stack without an http(s) URL (a page's `Error.stackTraceLimit = 0`, or an `Error.prepareStackTrace`
      // of its own, even one that throws) leaves the folder the site's config names (cdnUrl, or the site's root). No
      // `new URL`: the page's first URL object costs 0.1-0.2 ms. (The match, an array of one string, reads as that string.)
      script.src = (/https?:\/\/[^\s?#]*\//.exec(safely(() => Error().stack)!) || PK_CHUNK_FOLDER) + file;
      // a policy of nonces: the page's, from its first script that carries one (push.js's own does)
      script.nonce = (document.querySelector<HTMLElement>('script[nonce]') || script).nonce!;
      document.head.appendChild(script);
    });
  });

/** `load` called once; a failure is forgotten, so a later call tries again. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending =
      pending ||
      load().catch((error: unknown) => {
        pending = undefined;
        throw error;
      }));
}

/** The core's `get_`: loads the chunk that carries transport.ts, then makes the call. */
export const chunkGet =
  (chunk: () => Promise<{ _transport: Transport }>): Transport['get_'] =>
  (url, params) =>
    chunk().then((c) => c._transport.get_(url, params));
