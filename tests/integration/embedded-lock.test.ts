// The embedded database's lock (server/db/embedded-lock.ts) as operators meet it: `push-kit serve` as PID 1 of
// a container, killed -9 and started again as PID 1, starts (a pid file alone said "in use by process 1" forever);
// and of two processes starting at the same instant on one data folder exactly one gets it, twenty times over.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { seedMigratedDatabase } from '../support/migrated-database.ts';
import { tempDir } from '../support/server.ts';
import { killHard, startServe, writeFaultSite } from '../support/server-faults.ts';
import { START_DEADLINE_MS, timeoutForProcesses, whenReady } from '../support/process-ready.ts';

const removals: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const remove of removals) await remove();
});

// A container's init: a new PID namespace whose first process is the provider; --kill-child makes a kill -9 of
// unshare reach the provider, as `docker kill` reaches PID 1.
const AS_PID_1 = ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc'];
const canUnshare = process.platform === 'linux' && spawnSync(AS_PID_1[0]!, [...AS_PID_1.slice(1), 'true']).status === 0;

describe('embedded database lock', () => {
  it.runIf(canUnshare)(
    'lets a provider killed -9 as PID 1 start again as PID 1, and refuses a second one meanwhile',
    async () => {
      const project = await tempDir('pushkit-lock-pid1-');
      removals.push(project.remove);
      const siteFile = await writeFaultSite(project.path);
      const dataDir = join(project.path, '.push-kit', 'db');
      // the database starts migrated (migrated-database.ts): the lock is the subject here, not making the database
      await seedMigratedDatabase(dataDir);

      const first = await startServe(project.path, siteFile, {}, AS_PID_1);
      expect((await readFile(`${dataDir}.lock`, 'utf8')).trim()).toBe('1');
      const refused = spawnSync(
        process.execPath,
        [fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url)), 'serve', '--port', '0', '--sites', siteFile],
        {
          cwd: project.path,
          env: { ...process.env, DATABASE_URL: '', NO_COLOR: '1' },
          encoding: 'utf8',
          timeout: START_DEADLINE_MS,
        },
      );
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain('is in use by process 1;');
      await killHard(first);

      const again = await startServe(project.path, siteFile, {}, AS_PID_1);
      expect(again.output()).toContain('(embedded database .push-kit/db)');
      // as `docker stop` does: SIGTERM to PID 1 itself (unshare does not pass signals on)
      const pid1 = Number(readFileSync(`/proc/${again.pid}/task/${again.pid}/children`, 'utf8').trim());
      process.kill(pid1, 'SIGTERM');
      expect(await again.exited).toBe(0);
    },
    timeoutForProcesses(3), // serve, the refused serve, serve again
  );

  const together = { timeout: timeoutForProcesses(1) }; // the two contenders start at once
  it('gives the folder to exactly one of two processes starting at the same instant, 20 times', together, async () => {
    const dir = await tempDir('pushkit-lock-race-');
    removals.push(dir.remove);
    const contenderFile = join(dir.path, 'contender.ts');
    const lockModule = fileURLToPath(new URL('../../server/db/embedded-lock.ts', import.meta.url));
    // A process that takes the lock of the folder named on a "lock DIR" line and gives it back on "unlock".
    await writeFile(
      contenderFile,
      `import { createInterface } from 'node:readline';
import { lockEmbeddedDatabase } from ${JSON.stringify(lockModule)};
let unlock;
process.stdout.write('ready\\n');
createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line.startsWith('lock ')) {
    try {
      unlock = await lockEmbeddedDatabase(line.slice(5));
      process.stdout.write('won\\n');
    } catch (error) {
      process.stdout.write('refused ' + error.message + '\\n');
    }
  } else if (line === 'unlock') {
    await unlock();
    process.stdout.write('unlocked\\n');
  }
});
`,
    );
    // one process (tsx's cli would run the script in a child that a kill -9 leaves behind)
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const contender = () => {
      const child = spawn(process.execPath, ['--import', 'tsx', contenderFile], { cwd: root, stdio: 'pipe' });
      const pending: Array<(line: string) => void> = [];
      let buffered = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
          const line = buffered.slice(0, end);
          buffered = buffered.slice(end + 1);
          pending.shift()?.(line);
        }
      });
      const next = () => new Promise<string>((resolve) => pending.push(resolve));
      const ready = next();
      const say = (line: string) => {
        const answer = next();
        child.stdin!.write(`${line}\n`);
        return answer;
      };
      const exited = new Promise((resolve) => child.once('exit', resolve));
      return { child, ready, say, exited };
    };

    const pair = [contender(), contender()];
    // their ready line, or an exit with what they printed
    const started = (output: string) => (output.includes('ready\n') ? true : undefined);
    await Promise.all(pair.map((one) => whenReady(one.child, started, 'a lock contender')));
    await Promise.all(pair.map((one) => one.ready));
    for (let round = 0; round < 20; round += 1) {
      const dataDir = join(dir.path, `db-${round}`);
      const verdicts = await Promise.all(pair.map((one) => one.say(`lock ${dataDir}`)));
      expect(
        verdicts.filter((verdict) => verdict === 'won'),
        `round ${round}: ${verdicts.join(' | ')}`,
      ).toHaveLength(1);
      expect(verdicts.find((verdict) => verdict !== 'won')).toMatch(
        /^refused the embedded database .* is in use by (process \d+|another process);/,
      );
      expect(await pair[verdicts.indexOf('won')]!.say('unlock')).toBe('unlocked');
    }

    // the holder killed -9: the next process takes the folder at once
    const dataDir = join(dir.path, 'db-killed');
    expect(await pair[0]!.say(`lock ${dataDir}`)).toBe('won');
    pair[0]!.child.kill('SIGKILL');
    await pair[0]!.exited;
    expect(await pair[1]!.say(`lock ${dataDir}`)).toBe('won');
    pair[1]!.child.kill('SIGKILL');
    await pair[1]!.exited;
  });
});
