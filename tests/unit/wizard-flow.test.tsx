import React from 'react';
import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wizard } from '../../cli/wizard/Wizard.tsx';
import { siteConfigSchema } from '../../config/schema.ts';

const ENTER = '\r';
const DOWN = '\u001B[B';
const BACKSPACE = '\u007F';

const tick = () => new Promise((resolve) => setTimeout(resolve, 30));

async function until(check: () => boolean, what: string, frames: () => string | undefined) {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (check()) return;
    await tick();
  }
  throw new Error(`never saw ${what}; last frame:\n${frames()}`);
}

async function press(stdin: { write: (data: string) => void }, ...keys: string[]) {
  for (const key of keys) {
    stdin.write(key);
    await tick();
  }
}

function erase(count: number): string[] {
  return Array.from({ length: count }, () => BACKSPACE);
}

describe('push-kit init wizard', () => {
  it('refuses a wrong origin inline, takes the correction, goes back from the summary and writes the files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pk-wizard-'));
    let exitCode: number | undefined;
    const { stdin, lastFrame } = render(<Wizard dir={dir} force={false} onExit={(code) => (exitCode = code)} />);
    const frame = () => lastFrame() ?? '';
    await until(() => frame().includes('Company name'), 'the first question', lastFrame);

    await press(stdin, ...erase(7), 'Acme Inks', ENTER);
    await until(() => frame().includes('Config name'), 'the config name', lastFrame);
    expect(frame()).toContain('acme-inks');
    await press(stdin, ENTER);

    await until(() => frame().includes('Site origin'), 'the origin question', lastFrame);
    expect(frame()).toContain('child window');
    await press(stdin, ...erase(30), 'not a url', ENTER);
    await until(() => frame().includes('must be an absolute http(s) URL'), 'the inline origin error', lastFrame);
    expect(frame()).toContain('Site origin');
    await press(stdin, ...erase(9), 'https://acme.example', ENTER);
    await until(() => frame().includes('Provider URL'), 'the provider question', lastFrame);
    await press(stdin, ENTER);

    await until(() => frame().includes('Prompt style'), 'the prompt style', lastFrame);
    await press(stdin, DOWN, ENTER); // branded modal
    await until(() => frame().includes('Offer text'), 'the offer text', lastFrame);
    expect(frame()).toContain('Calligraphy submissions');
    await press(stdin, ENTER);
    await until(() => frame().includes('Allow button text'), 'the allow text', lastFrame);
    await press(stdin, ENTER);

    await until(() => frame().includes('Show the prompt on'), 'the include patterns', lastFrame);
    expect(frame()).toContain('https://acme.example/ qualifies');
    await press(stdin, BACKSPACE, '/blog/*');
    await until(() => frame().includes('https://acme.example/ excluded'), 'the live verdict change', lastFrame);
    await press(stdin, ENTER);

    await until(() => frame().includes('Never show it on'), 'the exclude patterns', lastFrame);
    await press(stdin, '\t', ...erase(30), 'https://acme.example/blog/drafts/1', ENTER);
    await until(() => frame().includes('https://acme.example/blog/drafts/1 qualifies'), 'a sample that qualifies', lastFrame);
    await press(stdin, '/blog/drafts/*');
    await until(() => frame().includes('https://acme.example/blog/drafts/1 excluded'), 'the sample excluded', lastFrame);
    await press(stdin, ENTER);

    await until(() => frame().includes('Show the prompt after'), 'the delay', lastFrame);
    await press(stdin, BACKSPACE, 'soon', ENTER);
    await until(() => frame().includes('✖'), 'the delay error', lastFrame);
    await press(stdin, ...erase(4), '12', ENTER);

    await until(() => frame().includes('tracking consent'), 'tracking consent', lastFrame);
    await press(stdin, DOWN, ENTER);
    await until(() => frame().includes('connected shop'), 'shop connection', lastFrame);
    await press(stdin, ENTER);
    await until(() => frame().includes('First segment id'), 'the segment id', lastFrame);
    await press(stdin, 'readers', ENTER);
    await until(() => frame().includes('Condition of segment readers'), 'the segment condition', lastFrame);
    await press(stdin, 'url contains', ENTER);
    await until(() => frame().includes('✖'), 'the condition error', lastFrame);
    await press(stdin, ' "/blog"', ENTER);

    await until(() => frame().includes('Summary'), 'the summary', lastFrame);
    expect(frame()).toContain('Company name: Acme Inks');
    // Back to the company name (second row), change it, return to the summary.
    await press(stdin, DOWN, ENTER);
    await until(() => frame().includes('Company name:'), 'the company question again', lastFrame);
    await press(stdin, ...erase(9), 'Acme Pens', ENTER);
    await until(() => frame().includes('Summary'), 'the summary again', lastFrame);
    expect(frame()).toContain('Company name: Acme Pens');
    expect(frame()).toContain('Config name: acme-pens');
    await press(stdin, ENTER);

    await until(() => exitCode !== undefined, 'the files written', lastFrame);
    expect(exitCode).toBe(0);
    expect(frame()).toContain('npx push-kit build site-configs/acme-pens.json');
    expect(frame()).toContain('npx push-kit dev site-configs/acme-pens.json');

    const text = await readFile(join(dir, 'site-configs', 'acme-pens.json'), 'utf8');
    const config = siteConfigSchema.parse(JSON.parse(text));
    expect(config).toMatchObject({
      companyName: 'Acme Pens',
      origin: 'https://acme.example',
      pcBranding: 1,
      includeUrls: ['/blog/*'],
      excludeUrls: ['/blog/drafts/*'],
      pageClickTrackingConcent: true,
      isShopifyConnectedAccount: false,
      segmentations: [{ sid: 'readers', ss: 'url contains "/blog"', vn: 1 }],
    });
    expect(config.triggers.delaySeconds).toBe(12);
    const keyFile = join(dir, '.push-kit', 'keys', 'acme-pens.json');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const keys = JSON.parse(await readFile(keyFile, 'utf8')) as { publicKey: string; privateKey: string };
    expect(config.vapidPublicKey).toBe(keys.publicKey);
    expect(text).not.toContain(keys.privateKey);
  }, 30_000);
});
