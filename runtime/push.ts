// Entry of push.js (placeholder until the runtime lands): installs the `pushkit` queue.
import { site } from 'pushkit:site';

const w = window as unknown as { pushkit?: unknown };
if (!site.isInactive && !Array.isArray(w.pushkit)) w.pushkit = [];
