// A throwaway PostgreSQL cluster of one test or benchmark (initdb + pg_ctl on a free loopback port), so the
// caller may stop and start it at will. PostgreSQL refuses to run as root: as root, the cluster is run as
// the `postgres` user, as tests/run-all.sh does.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PostgresCluster {
  url: string;
  port: number;
  /** Stops the server; `immediate` is a crash (no shutdown checkpoint), `fast` ends sessions cleanly. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and deletes its files. */
  remove(): Promise<void>;
}

/** The bin folder of the newest installed PostgreSQL, or undefined when initdb is not installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  return newest ? join(root, newest, 'bin') : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts a new cluster, or resolves undefined when PostgreSQL is not installed. */
export async function startPostgresCluster(): Promise<PostgresCluster | undefined> {
  const bin = postgresBinDir();
  if (!bin) return undefined;
  const asRoot = process.getuid?.() === 0;
  const pgRun = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);
  const dir = await mkdtemp(join(tmpdir(), 'push-kit-pg-'));
  if (asRoot) await chown(dir, ...(await postgresIds()));
  const data = join(dir, 'data');
  await pgRun('initdb', ['-D', data, '-U', 'pushkit', '--auth=trust', '--no-sync']);
  let port = 0;
  const start = async () => {
    await pgRun('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-t',
      '30',
      // fsync off: the tests restart the server process, not the machine
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      'start',
    ]);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await pgRun('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
  };
  // A port found free may be taken before the server binds it (another process, an outgoing connection): the first
  // start then tries another. A restart keeps the port its clients know.
  for (let attempt = 1; ; attempt += 1) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (error) {
      const log = await readFile(join(dir, 'log'), 'utf8').catch(() => '');
      if (attempt >= 4 || !log.includes('Address already in use')) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
  let removed = false;
  return {
    url: `postgres://pushkit@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    remove: async () => {
      if (removed) return;
      removed = true;
      await stop('immediate').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  return [Number(stdout.trim()), Number(group.trim())];
}
