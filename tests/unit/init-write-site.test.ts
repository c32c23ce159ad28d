import { describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureGitignored, writeSite } from '../../cli/wizard/write-site.ts';
import { configFromAnswers, defaultAnswers, sampleUrlVerdict, slugify, validateAnswer } from '../../cli/wizard/answers.ts';
import { isAsked, QUESTIONS } from '../../cli/wizard/questions/index.ts';

describe('init: answers and files', () => {
  it('leaves no key file behind when the config cannot be written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pk-write-'));
    await writeFile(join(dir, 'site-configs'), 'a file where the folder should be');
    await expect(writeSite(dir, defaultAnswers())).rejects.toThrow();
    expect(await readdir(join(dir, '.push-kit', 'keys'))).toEqual([]);
    expect(await readdir(join(dir, '.push-kit', 'owner-keys'))).toEqual([]);
  });

  it('adds .push-kit/ to an existing .gitignore once, on a line of its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pk-write-'));
    const file = join(dir, '.gitignore');
    await writeFile(file, 'node_modules\ndist');
    expect(await ensureGitignored(dir)).toEqual({ file, change: 'added' });
    expect(await ensureGitignored(dir)).toEqual({ file, change: 'present' });
    expect(await readFile(file, 'utf8')).toBe('node_modules\ndist\n.push-kit/\n');
    const other = await mkdtemp(join(tmpdir(), 'pk-write-'));
    await writeFile(join(other, '.gitignore'), '/.push-kit\n');
    expect(await ensureGitignored(other)).toEqual({ file: join(other, '.gitignore'), change: 'present' });
    expect(await readFile(join(other, '.gitignore'), 'utf8')).toBe('/.push-kit\n');
  });

  it('validates answers with the schema messages and checks sample URLs', () => {
    expect(validateAnswer({ ...defaultAnswers(), origin: 'https://a.example/path' }, 'origin')).toBe(
      'must be an origin only (scheme, host and port), with no path, query or fragment',
    );
    expect(validateAnswer({ ...defaultAnswers(), includeUrls: ['blog'] }, 'includeUrls')).toContain('must be "*"');
    expect(validateAnswer(defaultAnswers(), 'origin')).toBeUndefined();
    expect(slugify('Café Script & Co')).toBe('cafe-script-co');
    expect(sampleUrlVerdict('https://a.example/shop/1', ['/shop/*'], ['contains:/cart'])).toBe('qualifies');
    expect(sampleUrlVerdict('https://a.example/shop/cart', ['/shop/*'], ['contains:/cart'])).toBe('excluded');
    expect(sampleUrlVerdict('https://a.example/blog/1', ['/shop/*'], ['contains:/cart'])).toBe('not included');
  });

  it('asks and writes child window texts only for a site that has the child window', () => {
    const allowText = QUESTIONS.findIndex((question) => question.title === 'Allow text');
    const https = { ...defaultAnswers(), origin: 'https://a.example', offerText: 'Hear from us', allowText: 'Yes please' };
    expect(isAsked(allowText, https)).toBe(false);
    expect(configFromAnswers(https, 'h', 'k')).not.toHaveProperty('style');
    const http = { ...https, origin: 'http://a.example' };
    expect(isAsked(allowText, http)).toBe(true);
    expect(configFromAnswers(http, 'h', 'k').style).toEqual({ allowTextChildWindow: 'Yes please', offerTextChildWindow: 'Hear from us' });
    // the branded box shows the Allow text on any site
    expect(isAsked(allowText, { ...https, promptStyle: 'modal' })).toBe(true);
  });
});
