// The peer of push.js in the benchmarks: Firebase Cloud Messaging's web client (@firebase/app +
// @firebase/messaging), bundled and minified by esbuild in the same run as push-kit's build.
//   - FIREBASE_SUBSCRIBING_CLIENT: initialize, get a token, handle a message: what a site ships to subscribe
//     visitors (embed-weight.ts weighs it);
//   - FIREBASE_PAGE_LOAD_CLIENT: initialize, getMessaging and isSupported: what it runs on a view before it asks
//     for permission (page-cost.ts loads it, as push.js runs on a view before its prompt).
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const CONFIG = `{ apiKey: 'AIzaSyBench', projectId: 'bench', messagingSenderId: '103953800507', appId: '1:103953800507:web:1' }`;

export const FIREBASE_SUBSCRIBING_CLIENT = `
import { initializeApp } from '@firebase/app';
import { getMessaging, getToken, onMessage } from '@firebase/messaging';
const app = initializeApp(${CONFIG});
const messaging = getMessaging(app);
getToken(messaging, { vapidKey: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s' }).then((token) => console.log(token));
onMessage(messaging, (message) => console.log(message));
`;

export const FIREBASE_PAGE_LOAD_CLIENT = `
import { initializeApp } from '@firebase/app';
import { getMessaging, isSupported } from '@firebase/messaging';
isSupported().then((supported) => {
  if (supported) getMessaging(initializeApp(${CONFIG}));
});
`;

/** The client minified for the browser, as a site would serve it. */
export async function bundleFirebaseClient(source: string): Promise<Uint8Array> {
  const result = await build({
    stdin: { contents: source, resolveDir: REPO, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2017',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  return result.outputFiles[0]!.contents;
}
