// Figure 2 of the benchmarks: what push.js costs a page view in Chromium, on the example site built from the
// calligraphy config, against the same page whose push.js is answered with an empty script and against the same
// page whose push.js is answered with Firebase's messaging client (initializeApp + getMessaging + isSupported,
// bench/firebase-client.ts), measured in the same run, alternating, median of repeated loads:
//   - main-thread time: CDP Performance.getMetrics (ScriptDuration, TaskDuration) per load, and a CDP trace
//     of each load whose main-thread slices are attributed to the embed: those whose script URL is the embed's
//     (compile, evaluate, function calls, timers and event handlers it owns) and the microtask checkpoints
//     (RunMicrotasks) outside them, where promise continuations run: the host page runs no script of its own,
//     so these are the embed's (the empty embed's row shows what the page and the bench's probes add). Before
//     2026-11-26 the checkpoints were not counted, which hid most of Firebase's work (its set-up runs in promise
//     continuations, 8 ms of 16 under load) and any work push.js does after an await; the old figure is printed
//     beside the new one ("URL slices only");
//   - where the attributed time goes, by trace event: compile (V8's lazy compile on the main thread), source
//     positions (V8 re-parsing functions for a stack trace the inspector asks for: document.cookie's and the
//     service worker calls' under an attached DevTools session), synchronous calls to the browser process
//     (mojo sync calls: the first touch of cookies, localStorage, the permission), and JavaScript itself;
//   - the main thread's CPU time (thread clock) of the same slices: on a loaded machine a slice's wall time includes the
//     time its thread waited for a core, its CPU time does not (nor the waits for the browser process); the wall time
//     left when the CPU time and the sync IPC waits are taken out is printed per state (descheduled): on this
//     2-core machine it is most of an in-sync view's wall time and what moves it between runs of one tree (issue 34,
//     session 20), so each state also prints the median of the rounds' paired ratios against Firebase, whose loads
//     are the neighbours in time of push.js's;
//   - long tasks (PerformanceObserver 'longtask');
//   - the requests push.js makes on a view by a visitor already subscribed and in sync: every request of the
//     page and its service worker, with push.js against without, and the initiator of each.
//   - push.js is a core plus chunks beside it (push.<name>.<hash>.js), loaded after the page's load on a view that
//     needs one: main-thread time counts both; the chunks a view fetched are counted;
//   - the first touch of each piece of browser state the core reads (document.cookie, localStorage,
//     Notification.permission: each a synchronous call to the browser process) and the worker's subscription
//     (getRegistration + getSubscription, asynchronous), timed in the page on separate loads, with how many reads
//     of each a view makes.
// Three visitor states: a first visit (cookies, the origin's storage and the browser's cache cleared before each view
// of each embed), a later view by the same visitor not subscribed (permission not asked yet), and subscribed and in
// sync. Each view is watched from navigation until `load` + 500 ms, and at least 3.5 s from the navigation's start (so
// that Firebase's IndexedDB-gated set-up is inside; before 2026-11-27 18:40 UTC `load` + 500 ms alone): the prompt's
// trigger (calligraphy: 5 s) and what follows it are outside the window; the chunk prefetched at idle is fetched and
// evaluated inside it.
// Goals (issue 34): at most 0.5x Firebase's main-thread time on both, no request and no chunk on an in-sync view,
// no long task.
// --compare TREE builds the same site config (the stack's, ports and all) with another checkout's CLI (a `git worktree`
// of an earlier commit, its node_modules linked) and measures that push.js as a fourth embed, alternating with the
// others: an A/B of two bundles in one run, where the machine's load hits both alike (a folder holding push.js is
// taken as that build itself: it must be of the same config, ports and all; --states picks the visitor states to
// measure: first, later, sync).
// --dump FILE appends each load's attributed top-level slices (wall, CPU, each nested event's self time by name), the
// renderer that ran the embed (its process reused from an earlier view or new; its main thread's time on a core and
// waiting for one during the view, Linux schedstat), as JSON lines: what differs between a fast and a slow load.
//   npx tsx bench/page-cost.ts [--loads 15] [--path /submissions.html] [--host-storage] [--profile] [--compare TREE]
//     [--states first,later,sync] [--dump FILE]
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, CDPSession } from 'playwright-core';
import { launchPersistentChromium } from '../tests/support/browser.ts';
import { startFakeGcm } from '../tests/support/fake-gcm.ts';
import { startStack } from '../tests/support/stack.ts';
import { subscribeThroughApi } from '../tests/support/subscribe.ts';
import { benchArgs, wholeNumber } from './bench-args.ts';
import { bundleFirebaseClient, FIREBASE_PAGE_LOAD_CLIENT } from './firebase-client.ts';

const USAGE =
  'npx tsx bench/page-cost.ts [--loads 15] [--path /submissions.html] [--host-storage] [--profile] [--compare TREE] [--states first,later,sync] [--dump FILE]';
const values = benchArgs(USAGE, {
  loads: { type: 'string', default: '15' },
  path: { type: 'string', default: '/submissions.html' },
  // Also samples V8's CPU profile and prints where push.js spends its main-thread time (adds overhead).
  profile: { type: 'boolean', default: false },
  // The page's own script reads document.cookie and localStorage before push.js, as any page with analytics
  // or a consent banner does: the first read of each is a synchronous call to the browser process (about
  // 1 ms each here), which push.js then no longer pays.
  'host-storage': { type: 'boolean', default: false },
  // Another checkout whose build of the same config is measured beside this one's (an A/B in one run).
  compare: { type: 'string' },
  states: { type: 'string', default: 'first,later,sync' },
  // Appends every load's attributed top-level slices (and their descendants' self time by name) to this file, as JSON lines.
  dump: { type: 'string' },
});
const STATES = new Set(values.states.split(','));
for (const state of STATES) {
  if (!['first', 'later', 'sync'].includes(state)) {
    console.error(`--states: unknown state ${JSON.stringify(state)} (first, later, sync)\nusage: ${USAGE}`);
    process.exit(2);
  }
}
const LOADS = wholeNumber('loads', values.loads, USAGE);
const PATH = values.path;
/** How long a view is watched after `load`: push.js runs async and its in-sync checks are promise chains. */
const SETTLE_MS = 500;
/**
 * A timed view is watched at least this long from the navigation's start: Firebase's set-up waits for an IndexedDB
 * open, which on a first visit (a new database) took 0.8 s and more under load, and with `load` + 500 ms alone its
 * promise work fell after the trace in 4 of 9 first visits at load 18-35 (its CPU 5-8 ms against 17-23 ms). Under the
 * prompt's trigger (calligraphy: 5 s from push.js's start), so the prompt stays outside the window.
 */
const WATCH_FROM_START_MS = 3500;

interface LoadCost {
  scriptMs: number;
  taskMs: number;
  /** Main-thread time attributed to the embed: its slices and the microtask checkpoints (union of intervals). */
  pushJsMs: number;
  /** The same without the microtask checkpoints (the figure before 2026-11-26). */
  urlOnlyMs: number;
  /**
   * The main thread's CPU time (thread clock, `tdur`) in the same top-level slices: what the machine's other load does
   * not inflate (a slice whose thread is descheduled keeps its wall time, not its CPU time); no wait for the browser
   * process (sync IPC) is in it.
   */
  cpuMs: number;
  /** Self time of the attributed slices, by kind (PARTS). */
  parts: Record<Part, number>;
  /** The sync IPC part by mojo call (Interface::Method): which first touch costs what. */
  ipc: Record<string, number>;
  /** The attributed time by the task it ran in (STAGES): which stage of the view costs what. */
  stages: Record<Stage, number>;
  /** The same slices' main-thread CPU time by stage. */
  stagesCpu: Record<Stage, number>;
  longTasks: number;
}

/**
 * The attributed top-level slices by stage: the embed's own script (push.js, or Firebase's client, evaluated), the
 * microtask checkpoints (promise continuations: the view's decision, the storage first touches), the idle callbacks
 * with the microtasks they run (push.js's prefetch of its chunk once a prompt is armed: the script element, the
 * loader's stack read, the fetch's start), the chunks loaded after the page's `load` (evaluated, with V8's code cache
 * production), and the embed's other callbacks (timers, event listeners, the chunk's onload). Before 2026-11-28 the
 * idle callback was counted in "callbacks" and its microtasks in "microtasks".
 */
const STAGES = ['script', 'microtasks', 'idle', 'chunks', 'callbacks'] as const;
type Stage = (typeof STAGES)[number];

const PARTS = ['compile', 'source positions', 'sync IPC', 'JavaScript', 'other'] as const;
type Part = (typeof PARTS)[number];

interface TraceEvent {
  ph: string;
  name: string;
  ts: number;
  dur?: number;
  /** Thread (CPU) time of an 'X' slice, in microseconds. */
  tdur?: number;
  pid: number;
  tid: number;
  args?: {
    name?: string;
    fileName?: string;
    data?: {
      url?: string;
      stackTrace?: Array<{ url?: string }>;
      cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] };
      timeDeltas?: number[];
    };
  };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url?: string; lineNumber?: number; columnNumber?: number };
}

/** push.js and its chunks (push.<name>.<hash>.js beside it). */
const EMBED_FILE = /\/push(\.[a-z]+\.[0-9a-f]{10})?\.js(\?|$)/;
const CHUNK_FILE = /\/push\.[a-z]+\.[0-9a-f]{10}\.js(\?|$)/;

/** Self time of sampled push.js frames, keyed by minified function and column. */
const profileSelfMs = new Map<string, number>();

function addProfile(events: TraceEvent[]): void {
  const nodes = new Map<number, ProfileNode>();
  const samples: number[] = [];
  const deltas: number[] = [];
  for (const event of events) {
    if (event.name !== 'ProfileChunk') continue;
    for (const node of event.args?.data?.cpuProfile?.nodes ?? []) nodes.set(node.id, node);
    samples.push(...(event.args?.data?.cpuProfile?.samples ?? []));
    deltas.push(...(event.args?.data?.timeDeltas ?? []));
  }
  samples.forEach((id, index) => {
    const frame = nodes.get(id)?.callFrame;
    if (!frame?.url || !EMBED_FILE.test(frame.url)) return;
    const key = `${frame.functionName || '(anonymous)'}@${frame.columnNumber ?? 0}`;
    profileSelfMs.set(key, (profileSelfMs.get(key) ?? 0) + (deltas[index + 1] ?? 0) / 1000);
  });
}

const TRACE_CATEGORIES = [
  'devtools.timeline',
  'v8',
  // RunMicrotasks
  'v8.execute',
  // the synchronous mojo calls to the browser process, by interface and method
  'mojom',
  // V8's compile and source-position slices, nested in the script's
  'disabled-by-default-v8.compile',
  'disabled-by-default-devtools.timeline',
  '__metadata',
  ...(values.profile ? ['disabled-by-default-v8.cpu_profiler'] : []),
];

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function collectTrace(cdp: CDPSession, during: () => Promise<void>): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (chunk) => events.push(...(chunk.value as unknown as TraceEvent[])));
  const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: TRACE_CATEGORIES } });
  await during();
  await cdp.send('Tracing.end');
  await complete;
  return events;
}

/** A main-thread trace slice with the slices nested in it. */
interface Slice extends TraceEvent {
  children: Slice[];
  parent?: Slice;
}

function partOf(slice: Slice): Part {
  for (let up: Slice | undefined = slice; up; up = up.parent) if (up.name === 'V8.CollectSourcePositions') return 'source positions';
  if (/Compile|Parse|^v8\.compile$/.test(slice.name)) return 'compile';
  // a mojo call, named Interface::Method (the asynchronous ones are separate tasks, never nested in a script's)
  if (slice.name.includes('::')) return 'sync IPC';
  if (['v8.run', 'v8.callFunction', 'FunctionCall', 'EvaluateScript', 'RunMicrotasks'].includes(slice.name)) return 'JavaScript';
  return 'other';
}

/**
 * Main-thread time attributed to the embed: the union of the intervals of its slices (script URL) and of the
 * microtask checkpoints outside them; also the figure by URL alone and the self time of every attributed slice
 * by part.
 */
function attribute(
  events: TraceEvent[],
): Pick<LoadCost, 'pushJsMs' | 'urlOnlyMs' | 'cpuMs' | 'parts' | 'ipc' | 'stages' | 'stagesCpu'> & { dumped?: unknown[] } {
  const mainThreads = new Set(
    events
      .filter((event) => event.ph === 'M' && event.name === 'thread_name' && event.args?.name === 'CrRendererMain')
      .map((event) => `${event.pid}:${event.tid}`),
  );
  const urlOf = (event: TraceEvent): string =>
    event.args?.data?.url ?? event.args?.fileName ?? event.args?.data?.stackTrace?.[0]?.url ?? '';
  const slices = events
    .filter((event) => event.ph === 'X' && event.dur !== undefined && mainThreads.has(`${event.pid}:${event.tid}`))
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!)
    .map((event) => ({ ...event, children: [] }) as Slice);
  const open: Slice[] = [];
  for (const slice of slices) {
    while (open.length && open[open.length - 1]!.ts + open[open.length - 1]!.dur! <= slice.ts) open.pop();
    slice.parent = open[open.length - 1];
    slice.parent?.children.push(slice);
    open.push(slice);
  }
  const byUrl = (slice: Slice): boolean => EMBED_FILE.test(urlOf(slice));
  const inside = (slice: Slice, test: (slice: Slice) => boolean): boolean => {
    for (let up = slice.parent; up; up = up.parent) if (test(up)) return true;
    return false;
  };
  const owned = (slice: Slice): boolean => byUrl(slice) || slice.name === 'RunMicrotasks';
  const union = (test: (slice: Slice) => boolean): number => {
    let total = 0;
    let end = -Infinity;
    for (const slice of slices) {
      if (!test(slice)) continue;
      const stop = slice.ts + slice.dur!;
      if (stop <= end) continue;
      total += stop - Math.max(slice.ts, end);
      end = stop;
    }
    return total / 1000;
  };
  const parts = Object.fromEntries(PARTS.map((part) => [part, 0])) as Record<Part, number>;
  const ipc: Record<string, number> = {};
  for (const slice of slices) {
    if (!owned(slice) && !inside(slice, owned)) continue;
    const self = slice.dur! - slice.children.reduce((sum, child) => sum + child.dur!, 0);
    const part = partOf(slice);
    parts[part] += self / 1000;
    if (part === 'sync IPC') ipc[slice.name] = (ipc[slice.name] ?? 0) + self / 1000;
  }
  const stages = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as Record<Stage, number>;
  const stagesCpu = { ...stages };
  let cpuMs = 0;
  for (const slice of slices) {
    if (!owned(slice) || inside(slice, owned)) continue;
    cpuMs += (slice.tdur ?? 0) / 1000;
    const stage: Stage = CHUNK_FILE.test(urlOf(slice))
      ? 'chunks'
      : inside(slice, (up) => up.name === 'FireIdleCallback')
        ? 'idle'
        : slice.name === 'RunMicrotasks'
          ? 'microtasks'
          : slice.name === 'EvaluateScript' || slice.name.startsWith('ClassicPendingScript')
            ? 'script'
            : 'callbacks';
    stages[stage] += slice.dur! / 1000;
    stagesCpu[stage] += (slice.tdur ?? 0) / 1000;
  }
  let dumped: unknown[] | undefined;
  if (values.dump) {
    const start = slices[0]?.ts ?? 0;
    const selfByName = (slice: Slice, into: Record<string, number>): Record<string, number> => {
      into[slice.name] = (into[slice.name] ?? 0) + (slice.dur! - slice.children.reduce((sum, child) => sum + child.dur!, 0)) / 1000;
      for (const child of slice.children) selfByName(child, into);
      return into;
    };
    dumped = slices
      .filter((slice) => owned(slice) && !inside(slice, owned))
      .map((slice) => ({
        name: slice.name,
        url: urlOf(slice).replace(/^.*\//, ''),
        at: (slice.ts - start) / 1000,
        ms: slice.dur! / 1000,
        cpu: (slice.tdur ?? 0) / 1000,
        self: selfByName(slice, {}),
      }));
  }
  return {
    pushJsMs: union((slice) => owned(slice) && !inside(slice, owned)),
    urlOnlyMs: union(byUrl),
    cpuMs,
    parts,
    ipc,
    stages,
    stagesCpu,
    dumped,
  };
}

/** What the page's script tag loads: push.js, nothing (an empty file), or Firebase's client at the same URL. */
type Embed = 'push.js' | 'empty' | 'firebase' | 'compare';
/** The compare build's folder (push.js and its chunks), when --compare is given. */
let compareDir: string | undefined;
/** The other checkout's build of the stack's config (`--compare TREE`), removed at the end. */
let compareWork: string | undefined;
/** This tree's build of the site (the stack's), answered by the bench too when --compare is given. */
let ownDir: string | undefined;
const firebaseClient = Buffer.from(await bundleFirebaseClient(FIREBASE_PAGE_LOAD_CLIENT));

/**
 * `firstVisit`: the view starts from nothing, as a visitor's first view of the site does: no cookies, no storage of the
 * site's origin (localStorage, IndexedDB: Firebase's too), the browser's cache cleared (CDP Network.clearBrowserCache).
 */
async function loadCost(context: BrowserContext, url: string, embed: Embed, firstVisit = false): Promise<LoadCost> {
  const page = await context.newPage();
  if (embed === 'compare' || (compareDir && embed === 'push.js')) {
    // with --compare both builds are answered by the bench (the same way: a routed response differs from the example
    // site's in how the browser receives it), each from its own folder
    const dir = embed === 'compare' ? compareDir! : ownDir!;
    await page.route(EMBED_FILE, async (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/javascript',
        body: await readFile(join(dir, basename(new URL(route.request().url()).pathname))),
      }),
    );
  } else if (embed !== 'push.js') {
    const body = embed === 'empty' ? '' : firebaseClient;
    await page.route('**/push.js', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body }));
  }
  if (values['host-storage']) await page.addInitScript({ content: 'void document.cookie; void localStorage.length;' });
  await page.addInitScript(() => {
    (window as unknown as { __longTasks: number }).__longTasks = 0;
    new PerformanceObserver((list) => {
      (window as unknown as { __longTasks: number }).__longTasks += list.getEntries().length;
    }).observe({ type: 'longtask', buffered: true });
  });
  const cdp = await context.newCDPSession(page);
  if (firstVisit) {
    await context.clearCookies();
    await cdp.send('Storage.clearDataForOrigin', { origin: new URL(url).origin, storageTypes: 'all' });
    await cdp.send('Network.clearBrowserCache');
  }
  await cdp.send('Performance.enable');
  const before = await metricsOf(cdp);
  const threadsBefore = values.dump ? await schedstatsBefore() : new Map<string, { onCpu: number; waiting: number }>();
  const trace = await collectTrace(cdp, async () => {
    const started = Date.now();
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(Math.max(SETTLE_MS, WATCH_FROM_START_MS - (Date.now() - started)));
  });
  const after = await metricsOf(cdp);
  if (values.profile && embed === 'push.js') addProfile(trace);
  const longTasks = await page.evaluate(() => (window as unknown as { __longTasks: number }).__longTasks);
  const renderer = values.dump ? await rendererOfView(trace, threadsBefore) : undefined;
  await cdp.detach();
  await page.close();
  const { dumped, ...attributed } = attribute(trace);
  const cost = {
    scriptMs: (after.ScriptDuration - before.ScriptDuration) * 1000,
    taskMs: (after.TaskDuration - before.TaskDuration) * 1000,
    ...attributed,
    longTasks,
  };
  if (values.dump) await appendFile(values.dump, JSON.stringify({ embed, firstVisit, ...cost, renderer, slices: dumped }) + '\n');
  return cost;
}

/** Every renderer main thread seen in a trace, as `pid/tid`: a later view of the same site may run in the same process. */
const rendererThreads = new Set<string>();

/** Linux schedstat of a thread: time on a core and time waiting for one (run-queue), in ms; undefined once it is gone. */
async function schedstat(thread: string): Promise<{ onCpu: number; waiting: number } | undefined> {
  const [pid, tid] = thread.split('/');
  try {
    const [onCpu, waiting] = (await readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8')).split(' ').map(Number);
    return { onCpu: onCpu! / 1e6, waiting: waiting! / 1e6 };
  } catch {
    return undefined;
  }
}

/** The readings of the renderer main threads known before a view. */
async function schedstatsBefore(): Promise<Map<string, { onCpu: number; waiting: number }>> {
  const readings = new Map<string, { onCpu: number; waiting: number }>();
  for (const thread of rendererThreads) {
    const reading = await schedstat(thread);
    if (reading) readings.set(thread, reading);
    else rendererThreads.delete(thread);
  }
  return readings;
}

/**
 * The view's renderer main thread (the one that ran the embed's slices): its process (reused across views of the site
 * or new), and its time on a core and waiting for one during the view (from its start when it is new).
 */
async function rendererOfView(
  events: TraceEvent[],
  before: Map<string, { onCpu: number; waiting: number }>,
): Promise<{ thread: string; reused: boolean; onCpuMs: number; waitingMs: number } | undefined> {
  for (const event of events)
    if (event.ph === 'M' && event.name === 'thread_name' && event.args?.name === 'CrRendererMain')
      rendererThreads.add(`${event.pid}/${event.tid}`);
  const ran = events.find((event) => event.ph === 'X' && event.name === 'EvaluateScript' && EMBED_FILE.test(event.args?.data?.url ?? ''));
  if (!ran) return undefined;
  const thread = `${ran.pid}/${ran.tid}`;
  const after = await schedstat(thread);
  if (!after) return undefined;
  const start = before.get(thread) ?? { onCpu: 0, waiting: 0 };
  return { thread, reused: before.has(thread), onCpuMs: after.onCpu - start.onCpu, waitingMs: after.waiting - start.waiting };
}

async function metricsOf(cdp: CDPSession): Promise<Record<'ScriptDuration' | 'TaskDuration', number>> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const metric = (name: string) => metrics.find((entry) => entry.name === name)?.value ?? 0;
  return { ScriptDuration: metric('ScriptDuration'), TaskDuration: metric('TaskDuration') };
}

/**
 * The first touch of each piece of browser state, timed in the page: the page's own code touches none of them, so the
 * first call is push.js's (the core's). Wrapped getters add a few microseconds; these loads are not the timed ones.
 */
interface Touches {
  cookieFirstMs: number;
  cookieReads: number;
  localStorageFirstMs: number;
  localStorageReads: number;
  permissionFirstMs: number;
  permissionReads: number;
  /** getRegistration to getSubscription's answer (asynchronous: off the main thread but on the view's path). */
  subscriptionMs: number;
  chunks: number;
}

const TOUCH_PROBE = `(() => {
  const t = (window.__touches = { cookieFirstMs: -1, cookieReads: 0, localStorageFirstMs: -1, localStorageReads: 0, permissionFirstMs: -1, permissionReads: 0, subscriptionMs: -1 });
  const timed = (target, name, key) => {
    const descriptor = Object.getOwnPropertyDescriptor(target, name);
    Object.defineProperty(target, name, { ...descriptor, get() {
      const start = performance.now();
      const value = descriptor.get.call(this);
      if (t[key + 'FirstMs'] < 0) t[key + 'FirstMs'] = performance.now() - start;
      t[key + 'Reads'] += 1;
      return value;
    } });
  };
  timed(Document.prototype, 'cookie', 'cookie');
  timed(window, 'localStorage', 'localStorage');
  if (window.Notification) timed(Notification, 'permission', 'permission');
  const getRegistration = ServiceWorkerContainer.prototype.getRegistration;
  ServiceWorkerContainer.prototype.getRegistration = function (...args) {
    const start = performance.now();
    return getRegistration.apply(this, args).then((registration) => {
      if (!registration) { t.subscriptionMs = performance.now() - start; return registration; }
      const getSubscription = registration.pushManager.getSubscription;
      registration.pushManager.getSubscription = function () {
        return getSubscription.call(this).then((subscription) => { if (t.subscriptionMs < 0) t.subscriptionMs = performance.now() - start; return subscription; });
      };
      return registration;
    });
  };
})();`;

async function touchesOf(context: BrowserContext, url: string): Promise<Touches> {
  const page = await context.newPage();
  await page.addInitScript({ content: TOUCH_PROBE });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForTimeout(SETTLE_MS);
  const touches = await page.evaluate(() => (window as unknown as { __touches: Omit<Touches, 'chunks'> }).__touches);
  const chunks = await page.evaluate(
    (pattern) => performance.getEntriesByType('resource').filter((entry) => new RegExp(pattern).test(entry.name)).length,
    CHUNK_FILE.source,
  );
  await page.close();
  return { ...touches, chunks };
}

function touchTable(title: string, runs: Touches[]): void {
  const med = (key: keyof Touches) => median(runs.map((run) => run[key]));
  const ms = (key: keyof Touches) => (med(key) < 0 ? 'not read' : `${med(key).toFixed(2)} ms`);
  console.log(`\nfirst touches of browser state, ${title}, median of ${runs.length} views (reads per view in brackets):`);
  console.log(`  document.cookie         ${ms('cookieFirstMs').padStart(9)}  (${med('cookieReads')} reads)`);
  console.log(`  localStorage            ${ms('localStorageFirstMs').padStart(9)}  (${med('localStorageReads')} accesses)`);
  console.log(`  Notification.permission ${ms('permissionFirstMs').padStart(9)}  (${med('permissionReads')} reads)`);
  console.log(`  worker's subscription   ${ms('subscriptionMs').padStart(9)}  (asynchronous)`);
  console.log(`  chunks fetched: ${med('chunks')} (every view: ${runs.map((run) => run.chunks).join(' ')})`);
}

interface SeenRequest {
  line: string;
  /** Who started it: the script URL at the top of the initiator stack, or the initiator type. */
  initiator: string;
}

/** One view, watched for `watchMs` after load: every request of the page, its frames and its service worker. */
async function requestsOfView(context: BrowserContext, url: string, emptyPushJs: boolean, watchMs: number): Promise<SeenRequest[]> {
  const page = await context.newPage();
  if (emptyPushJs) await page.route('**/push.js', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }));
  const seen: SeenRequest[] = [];
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.requestWillBeSent', (event) => {
    const stack = event.initiator.stack;
    let script: string | undefined;
    for (let frames = stack; frames && !script; frames = frames.parent) script = frames.callFrames.find((frame) => frame.url)?.url;
    seen.push({ line: `${event.request.method} ${event.request.url}`, initiator: script ?? event.initiator.url ?? event.initiator.type });
  });
  // Requests the service worker makes (fetch from the worker, its script update check) reach the context.
  const onWorkerRequest = (request: { url(): string; method(): string; serviceWorker(): unknown }) => {
    if (request.serviceWorker()) seen.push({ line: `${request.method()} ${request.url()}`, initiator: 'service worker' });
  };
  context.on('request', onWorkerRequest);
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForTimeout(watchMs);
  context.off('request', onWorkerRequest);
  await cdp.detach();
  await page.close();
  return seen;
}

function table(title: string, runs: Record<Embed, LoadCost[]>): { extraScriptMs: number; pushJsMs: number; firebaseMs: number } {
  const med = (costs: LoadCost[], key: Exclude<keyof LoadCost, 'parts' | 'ipc' | 'stages' | 'stagesCpu'>) =>
    median(costs.map((cost) => cost[key]));
  const part = (costs: LoadCost[], name: Part) => median(costs.map((cost) => cost.parts[name])).toFixed(2);
  const row = (name: string, costs: LoadCost[]) =>
    console.log(
      name.padEnd(36),
      med(costs, 'scriptMs').toFixed(2).padStart(10),
      med(costs, 'taskMs').toFixed(2).padStart(10),
      med(costs, 'pushJsMs').toFixed(2).padStart(10),
      med(costs, 'urlOnlyMs').toFixed(2).padStart(10),
      med(costs, 'cpuMs').toFixed(2).padStart(10),
      String(med(costs, 'longTasks')).padStart(6),
      '  ' + PARTS.map((name) => part(costs, name)).join(' / '),
    );
  console.log(`\n${title}`);
  console.log(
    'page'.padEnd(36),
    'script ms'.padStart(10),
    'task ms'.padStart(10),
    'embed ms*'.padStart(10),
    'URL only'.padStart(10),
    'CPU ms'.padStart(10),
    'long'.padStart(6),
    `  medians of ${PARTS.join(' / ')} (ms)`,
  );
  row('without an embed (empty file)', runs.empty);
  row('with push.js', runs['push.js']);
  row('with Firebase messaging (same URL)', runs.firebase);
  if (compareDir) row('with push.js of --compare', runs.compare);
  const extra = (costs: LoadCost[], key: 'scriptMs' | 'taskMs') => med(costs, key) - med(runs.empty, key);
  const extraScriptMs = extra(runs['push.js'], 'scriptMs');
  const pushJsMs = med(runs['push.js'], 'pushJsMs');
  const firebaseMs = med(runs.firebase, 'pushJsMs');
  console.log(
    `push.js adds ${extraScriptMs.toFixed(2)} ms script time, ${extra(runs['push.js'], 'taskMs').toFixed(2)} ms task time; Firebase adds ${extra(runs.firebase, 'scriptMs').toFixed(2)} ms script, ${extra(runs.firebase, 'taskMs').toFixed(2)} ms task`,
  );
  console.log(
    `trace-attributed main thread: push.js ${pushJsMs.toFixed(2)} ms, Firebase ${firebaseMs.toFixed(2)} ms = ${(pushJsMs / firebaseMs).toFixed(3)}x (goal: <= 0.5x, and under 5 ms)`,
  );
  const calls = [...new Set(runs['push.js'].flatMap((cost) => Object.keys(cost.ipc)))];
  const callMs = (call: string) => median(runs['push.js'].map((cost) => cost.ipc[call] ?? 0));
  console.log(
    `push.js's sync IPC by call (median ms): ${
      calls
        .sort((x, y) => callMs(y) - callMs(x))
        .map((call) => `${call} ${callMs(call).toFixed(2)}`)
        .join(', ') || 'none'
    }`,
  );
  const stage = (costs: LoadCost[], name: Stage, key: 'stages' | 'stagesCpu' = 'stages') =>
    median(costs.map((cost) => cost[key][name])).toFixed(2);
  const stageCpu = (costs: LoadCost[], name: Stage) => stage(costs, name, 'stagesCpu');
  console.log(
    `by stage (median ms; ${STAGES.join(' / ')}): push.js ${STAGES.map((name) => stage(runs['push.js'], name)).join(' / ')}; Firebase ${STAGES.map((name) => stage(runs.firebase, name)).join(' / ')}`,
  );
  console.log(
    `by stage, main-thread CPU (median ms): push.js ${STAGES.map((name) => stageCpu(runs['push.js'], name)).join(' / ')}; Firebase ${STAGES.map((name) => stageCpu(runs.firebase, name)).join(' / ')}`,
  );
  const cpu = (costs: LoadCost[]) => med(costs, 'cpuMs');
  console.log(
    `main-thread CPU time of the same slices (thread clock; the machine's other load does not inflate it, sync IPC waits are not in it): push.js ${cpu(runs['push.js']).toFixed(2)} ms, Firebase ${cpu(runs.firebase).toFixed(2)} ms = ${(cpu(runs['push.js']) / cpu(runs.firebase)).toFixed(3)}x`,
  );
  // Each round's loads are neighbours in time: the machine's load at that moment hits both, so the median of the
  // rounds' ratios is steadier than a ratio of medians.
  const paired = (other: Embed, key: 'pushJsMs' | 'cpuMs') =>
    median(runs['push.js'].map((cost, round) => cost[key] / runs[other][round]![key])).toFixed(3);
  if (compareDir) {
    console.log(
      `--compare: main thread ${med(runs.compare, 'pushJsMs').toFixed(2)} ms (${(med(runs.compare, 'pushJsMs') / firebaseMs).toFixed(3)}x Firebase), CPU ${cpu(runs.compare).toFixed(2)} ms (${(cpu(runs.compare) / cpu(runs.firebase)).toFixed(3)}x); this tree / --compare: main thread ${(pushJsMs / med(runs.compare, 'pushJsMs')).toFixed(3)}, CPU ${(cpu(runs['push.js']) / cpu(runs.compare)).toFixed(3)}; by stage ${STAGES.map((name) => stage(runs.compare, name)).join(' / ')} (CPU ${STAGES.map((name) => stageCpu(runs.compare, name)).join(' / ')})`,
    );
    console.log(
      `this tree / --compare, median of the ${runs.compare.length} rounds' ratios: main thread ${paired('compare', 'pushJsMs')}, CPU ${paired('compare', 'cpuMs')}`,
    );
  }
  // A slice's wall time is its thread's CPU time, its waits for the browser process (sync IPC) and the time it was
  // descheduled (mostly waiting for a core: the machine's, not the embed's); the last is what moves the wall figure
  // between runs of one tree.
  const offCpu = (costs: LoadCost[]) => median(costs.map((cost) => cost.pushJsMs - cost.cpuMs - cost.parts['sync IPC'])).toFixed(2);
  console.log(
    `paired with Firebase, median of the ${runs['push.js'].length} rounds' ratios: main thread ${paired('firebase', 'pushJsMs')}, CPU ${paired('firebase', 'cpuMs')}; wall time neither on the CPU nor in sync IPC (descheduled: waiting for a core, page faults, locks), median: push.js ${offCpu(runs['push.js'])} ms, Firebase ${offCpu(runs.firebase)} ms`,
  );
  const urlOnly = (costs: LoadCost[]) => med(costs, 'urlOnlyMs');
  console.log(
    `URL slices only (the figure before 2026-11-26): push.js ${urlOnly(runs['push.js']).toFixed(2)} ms, Firebase ${urlOnly(runs.firebase).toFixed(2)} ms = ${(urlOnly(runs['push.js']) / urlOnly(runs.firebase)).toFixed(3)}x`,
  );
  return { extraScriptMs, pushJsMs, firebaseMs };
}

/** Every load of each embed, alternating push.js, empty and Firebase so drift in the machine hits all three alike. */
async function measureAll(context: BrowserContext, url: string, firstVisit = false): Promise<Record<Embed, LoadCost[]>> {
  const runs: Record<Embed, LoadCost[]> = { empty: [], 'push.js': [], firebase: [], compare: [] };
  const embeds: Embed[] = compareDir ? ['empty', 'push.js', 'firebase', 'compare'] : ['empty', 'push.js', 'firebase'];
  for (let i = 0; i < LOADS; i += 1) {
    // the order turns each round, so neither push.js follows the other always
    const order = compareDir && i % 2 ? (['empty', 'compare', 'firebase', 'push.js'] as Embed[]) : embeds;
    for (const embed of order) runs[embed].push(await loadCost(context, url, embed, firstVisit));
  }
  return runs;
}

const stack = await startStack();
if (values.compare && existsSync(join(values.compare, 'push.js'))) {
  // a built site folder (push.js and its chunks) of the same config
  ownDir = join(stack.distDir, (await readdir(stack.distDir))[0]!);
  compareDir = resolve(values.compare);
} else if (values.compare) {
  // the stack's config as it was built (ports and all), built again by the other checkout's CLI
  const tree = resolve(values.compare);
  const work = await mkdtemp(join(tmpdir(), 'page-cost-compare-'));
  compareWork = work;
  // the stack's own build is the only site folder in its dist folder
  ownDir = join(stack.distDir, (await readdir(stack.distDir))[0]!);
  const file = join(work, `${basename(ownDir)}.json`);
  await writeFile(file, JSON.stringify(stack.config, null, 2));
  await promisify(execFile)(process.execPath, [join(tree, 'bin/push-kit.js'), 'build', file, '--out', join(work, 'dist')], { cwd: tree });
  compareDir = join(work, 'dist', basename(file, '.json'));
}
const gcm = await startFakeGcm();
const browser = await launchPersistentChromium(gcm.chromiumArgs);
const url = `${stack.siteUrl}${PATH}`;
try {
  // Warm-up: the browser's own start (processes, fonts). The example site serves every file `no-store` (a dev
  // server) and Firebase's client is routed, so no later view reads either from the HTTP cache.
  await loadCost(browser.context, url, 'push.js');
  await loadCost(browser.context, url, 'firebase');
  if (compareDir) await loadCost(browser.context, url, 'compare');
  console.log(
    `page cost, example site ${PATH} (calligraphy build), median of ${LOADS} loads each, alternating; Chromium headless, 2 shared cores`,
  );
  if (values['host-storage']) console.log('the page itself reads document.cookie and localStorage before push.js runs (--host-storage)');
  if (compareDir) console.log(`--compare: push.js built by ${resolve(values.compare!)} (${compareDir})`);
  const ratios: string[] = [];
  const worstOf: number[] = [];
  const measured = (figures: { extraScriptMs: number; pushJsMs: number; firebaseMs: number }, name: string): void => {
    worstOf.push(figures.pushJsMs, figures.extraScriptMs);
    ratios.push(`${name} ${(figures.pushJsMs / figures.firebaseMs).toFixed(3)}x`);
  };
  if (STATES.has('first')) {
    // Each view of an embed starts from nothing: the first visit of issue 34.
    const firstVisit = await measureAll(browser.context, url, true);
    measured(
      table(
        'first visit: no cookies, storage or caches before each view (permission not asked; the prompt waits 5 s and is not counted)',
        firstVisit,
      ),
      'first visit',
    );
  }
  if (STATES.has('later')) {
    // The same visitor's later views (the cookies, storage and caches of the views before kept).
    const laterRuns = await measureAll(browser.context, url);
    measured(
      table('a later view by the same visitor, not subscribed (the first-visit figure before 2026-11-27 03:40 UTC)', laterRuns),
      'a later view not subscribed',
    );
    const freshTouches: Touches[] = [];
    for (let i = 0; i < Math.min(LOADS, 7); i += 1) {
      await browser.context.clearCookies();
      freshTouches.push(await touchesOf(browser.context, url));
    }
    touchTable('visitor not subscribed (cookies cleared before each view)', freshTouches);
  }
  let requestsFigure = '';
  if (STATES.has('sync')) {
    // A visitor who subscribed on an earlier view (permission granted, soft prompt answered).
    await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
    const subscribing = await browser.context.newPage();
    await subscribing.goto(`${stack.siteUrl}/`);
    const { subscriberId } = await subscribeThroughApi(subscribing);
    await subscribing.waitForTimeout(SETTLE_MS);
    await subscribing.close();
    // One more view settles anything left from the subscribing view (a sync it queued, a worker update).
    await requestsOfView(browser.context, url, false, 1000);
    const subscribed = await measureAll(browser.context, url);
    measured(table(`visitor subscribed and in sync (subscriber ${subscriberId})`, subscribed), 'in-sync');
    const subscribedTouches: Touches[] = [];
    for (let i = 0; i < Math.min(LOADS, 7); i += 1) subscribedTouches.push(await touchesOf(browser.context, url));
    touchTable('visitor subscribed and in sync', subscribedTouches);

    // Watched past the 5 s auto-trigger delay, so nothing push.js schedules later on the view escapes.
    const watchMs = 6000;
    const withPushRequests = await requestsOfView(browser.context, url, false, watchMs);
    const withoutRequests = await requestsOfView(browser.context, url, true, watchMs);
    const baseline = new Set(withoutRequests.map((request) => request.line));
    const byPushJs = withPushRequests.filter((request) => !baseline.has(request.line) && !/\/push\.js$/.test(request.line));
    const chunksInSync = withPushRequests.filter((request) => CHUNK_FILE.test(request.line));
    console.log(`\nrequests on a subscribed, in-sync view, watched ${watchMs / 1000} s after load:`);
    console.log(
      `  with push.js: ${withPushRequests.length} (${withPushRequests.map((request) => request.line.replace(stack.siteUrl, '')).join(', ')})`,
    );
    console.log(`  without:      ${withoutRequests.length}`);
    console.log(`requests made by push.js: ${byPushJs.length} (goal: 0); chunks fetched: ${chunksInSync.length} (goal: 0)`);
    for (const request of byPushJs) console.log(`  ${request.line}   initiator: ${request.initiator}`);
    requestsFigure = `; requests ${byPushJs.length} (goal 0: ${byPushJs.length === 0 ? 'met' : 'not met'})`;
  }
  console.log(
    '* main-thread trace slices whose script URL is the embed or its chunks (compile, evaluate, callbacks) and the microtask checkpoints outside them, union of intervals; "URL only": without the checkpoints (the figure before 2026-11-26)',
  );
  const worst = Math.max(...worstOf);
  if (values.profile) {
    const source = await (await fetch(`${stack.siteUrl}/push.js`)).text();
    console.log(
      `\nsampled self time in push.js over every load of the states measured (${LOADS * STATES.size} loads), top 15; code at the column:`,
    );
    for (const [key, ms] of [...profileSelfMs].sort((x, y) => y[1] - x[1]).slice(0, 15)) {
      const column = Number(key.split('@')[1]);
      console.log(`  ${ms.toFixed(2).padStart(7)} ms  ${key.padEnd(18)} ${source.slice(column, column + 90)}`);
    }
  }
  console.log(
    `\nworst main-thread figure ${worst.toFixed(2)} ms (goal: under 5 ms: ${worst < 5 ? 'met' : 'not met'}); ${ratios.join(', ')} Firebase (goal <= 0.5x)${requestsFigure}`,
  );
} finally {
  await browser.close();
  await gcm.close();
  await stack.close();
  if (compareWork) await rm(compareWork, { recursive: true, force: true });
}
