// RFC 8291 encryption on every core: a pool of worker threads, one per core, each taking the messages queued in
// one event-loop turn as one batch so the cost of a thread hop is paid per batch, not per message. A thread that
// dies fails only its own batch (as a retryable error) and is replaced. The main thread's HTTP, TLS and database
// work is a third of a message's CPU at most, and PostgreSQL and the push services share the machine: with one
// core left to the main thread, a 2-core machine had one encryption thread, busy while the other core idled
// (bench/README.md, issue 34).
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { payloadTooLarge, type SubscriptionKeys } from './encrypt.ts';

/**
 * A batch as posted to a thread: each message's payload, p256dh and auth, one after the other in one array (a
 * structured clone of plain strings costs a quarter of one of an object per message with its keys object).
 */
export type EncryptionBatch = Array<string | Uint8Array>;

/**
 * A thread's answer to a batch, in the batch's order: the bodies end to end in one buffer, transferred (not copied),
 * their lengths (0 for a message that could not be encrypted), and why each such message could not be.
 */
export interface EncryptedBatch {
  bodies: ArrayBuffer;
  lengths: number[];
  errors?: Array<{ index: number; error: string; tooLarge?: number }>;
}

/** Messages of a turn per thread it is split over: a turn of up to this many is not worth two posts and answers. */
const MIN_SHARE = 8;

interface Waiting {
  resolve(body: Buffer): void;
  reject(error: Error): void;
}

interface PoolThread {
  worker: Worker;
  /** The batches posted to the thread and not yet answered, oldest first: a thread answers its batches in order. */
  batches: Waiting[][];
  /** Messages of those batches. */
  waiting: number;
}

/**
 * The thread's code. The package ships it as JavaScript; under tsx (development, tests) it is TypeScript, and a
 * worker thread does not inherit tsx's loader, so the thread registers it before importing the file.
 */
function startWorker(): Worker {
  const url = new URL(`./encrypt-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
  if (url.pathname.endsWith('.js')) return new Worker(url);
  // tsx/esm/api's `import` entry, found from here so that the thread does not depend on the working directory.
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(code, { eval: true });
}

/** Threads of a pool sized to the machine: one per core (the operating system shares them with the main thread). */
export function defaultPoolSize(): number {
  return Math.max(1, availableParallelism());
}

export class EncryptionPool {
  private readonly threads: PoolThread[] = [];
  private queued: Array<{ payload: string | Uint8Array; keys: SubscriptionKeys } & Waiting> = [];
  private flushScheduled = false;
  private closed = false;

  /**
   * `size` is the most threads the pool runs. They start as the work needs them (see flush), not all at once: a
   * thread costs 70-140 ms of CPU to start (~500 ms under tsx), and most processes that send send a handful of
   * messages (`push-kit send` to a few subscribers, an automation's one message) or none.
   */
  constructor(readonly size: number = defaultPoolSize()) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`encryption pool size must be a whole number >= 1, got ${size}`);
  }

  encrypt(payload: string | Uint8Array, keys: SubscriptionKeys): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('encryption pool is closed'));
    return new Promise((resolve, reject) => {
      this.queued.push({ payload, keys, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Ends the threads; messages still waiting fail. */
  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
    for (const thread of threads) this.failWaiting(thread, new Error('encryption pool is closed'));
    for (const job of this.queued.splice(0)) job.reject(new Error('encryption pool is closed'));
  }

  private startThread(): PoolThread {
    const thread: PoolThread = { worker: startWorker(), batches: [], waiting: 0 };
    // The pool never keeps a process alive by itself (`push-kit send` exits when its campaign is done).
    thread.worker.unref();
    thread.worker.on('message', ({ bodies, lengths, errors }: EncryptedBatch) => {
      const batch = thread.batches.shift();
      if (!batch) return;
      thread.waiting -= batch.length;
      let offset = 0;
      for (let index = 0; index < batch.length; index += 1) {
        const length = lengths[index]!;
        if (length > 0) batch[index]!.resolve(Buffer.from(bodies, offset, length));
        offset += length;
      }
      for (const { index, error, tooLarge } of errors ?? []) {
        batch[index]!.reject(tooLarge === undefined ? new Error(error) : payloadTooLarge(tooLarge));
      }
    });
    const replace = (error: Error) => {
      const index = this.threads.indexOf(thread);
      if (index === -1) return;
      this.failWaiting(thread, error);
      if (this.closed) return;
      this.threads[index] = this.startThread();
    };
    thread.worker.on('error', (error) => replace(new Error(`encryption thread failed: ${error.message}`)));
    thread.worker.on('exit', (code) => replace(new Error(`encryption thread exited with code ${code}`)));
    return thread;
  }

  private failWaiting(thread: PoolThread, error: Error): void {
    for (const batch of thread.batches.splice(0)) for (const waiting of batch) waiting.reject(error);
    thread.waiting = 0;
  }

  /**
   * Splits the turn's messages evenly over one thread per MIN_SHARE of them (at most `size` threads), least busy
   * threads first: a turn of up to MIN_SHARE goes whole to one thread (the next turn's to another), as each batch
   * costs the main thread a post and an answer. A thread starts when the turn needs more threads than run, or when
   * every running thread is still busy.
   */
  private flush(): void {
    this.flushScheduled = false;
    const jobs = this.queued.splice(0);
    if (jobs.length === 0) return;
    const needed = Math.min(this.size, Math.ceil(jobs.length / MIN_SHARE));
    while (this.threads.length < needed || (this.threads.length < this.size && this.threads.every((thread) => thread.waiting > 0))) {
      this.threads.push(this.startThread());
    }
    const threads = [...this.threads].sort((a, b) => a.waiting - b.waiting);
    const share = Math.ceil(jobs.length / needed);
    threads.forEach((thread, index) => {
      const batch = jobs.slice(index * share, (index + 1) * share);
      if (batch.length === 0) return;
      const message: EncryptionBatch = new Array(batch.length * 3);
      batch.forEach(({ payload, keys }, position) => {
        message[position * 3] = payload;
        message[position * 3 + 1] = keys.p256dh;
        message[position * 3 + 2] = keys.auth;
      });
      thread.batches.push(batch);
      thread.waiting += batch.length;
      thread.worker.postMessage(message);
    });
  }
}

let shared: EncryptionPool | undefined;

/** The process's pool, started on first use: every campaign of the process shares its threads. */
export function sharedEncryptionPool(): EncryptionPool {
  return (shared ??= new EncryptionPool());
}

export async function closeSharedEncryptionPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
