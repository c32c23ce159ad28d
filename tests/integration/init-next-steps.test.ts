// The commands `push-kit init` prints as next steps, run exactly as printed (with this checkout's bin for
// `npx push-kit`): from the folder init ran in, with --dir elsewhere, `cd` comes first and the rest works.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startDev } from '../support/dev-process.ts';
import { timeoutForProcesses } from '../support/process-ready.ts';
import { tempDir } from '../support/server.ts';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/push-kit.js', import.meta.url));
const removals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const remove of removals) await remove();
});

describe('the next steps push-kit init prints', () => {
  // init, build, dev: one after the other
  it('run as printed: cd into --dir, build, then dev serving the new site', { timeout: timeoutForProcesses(3) }, async () => {
    const work = await tempDir('pushkit-next-');
    removals.push(work.remove);
    const answers = join(work.path, 'answers.json');
    await writeFile(answers, JSON.stringify({ companyName: 'Ink & Quill', origin: 'https://quill.example/' }));
    await mkdir(join(work.path, 'project'));
    const init = await run(process.execPath, [BIN, 'init', '--answers', answers, '--dir', 'project'], { cwd: work.path });
    const config = JSON.parse(await readFile(join(work.path, 'project', 'site-configs', 'ink-quill.json'), 'utf8')) as {
      origin: string;
      texts: { offer: string };
    };
    expect(config.origin).toBe('https://quill.example');
    expect(config.texts.offer).toBe('Ink & Quill wants to notify you when there is something new.');

    const steps = init.stdout
      .slice(init.stdout.indexOf('Next:\n') + 'Next:\n'.length)
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    expect(steps).toEqual(['cd project', 'npx push-kit build site-configs/ink-quill.json', 'npx push-kit dev site-configs/ink-quill.json']);

    let cwd = work.path;
    for (const step of steps) {
      const [command, ...args] = step.split(' ');
      if (command === 'cd') {
        cwd = resolve(cwd, args[0]!);
        continue;
      }
      expect(command).toBe('npx');
      const pushKitArgs = args.slice(1);
      if (pushKitArgs[0] === 'dev') {
        const dev = await startDev([process.execPath, BIN, ...pushKitArgs], cwd);
        const page = await fetch(`${dev.site}/`);
        expect(await dev.stop(), dev.output()).toBe(0);
        expect(page.status).toBe(200);
        expect(dev.output()).toMatch(/^ {2}local page /m);
        expect(dev.output()).not.toContain('warning');
      } else {
        await run(process.execPath, [BIN, ...pushKitArgs], { cwd });
      }
    }
    expect(existsSync(join(work.path, 'project', 'dist', 'ink-quill', 'push.js'))).toBe(true);
  });
});
