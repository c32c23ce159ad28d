import React, { act } from 'react';
import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wizard } from '../../cli/wizard/Wizard.tsx';
import { siteConfigSchema } from '../../config/schema.ts';
import { defaultAnswers, validateAnswer } from '../../cli/wizard/answers.ts';
import { SEGMENT_CONDITION_EXAMPLE } from '../../cli/wizard/questions/FirstSegment.tsx';

const ENTER = '\r';
const DOWN = '\u001B[B';
const BACKSPACE = '\u007F';
const CTRL_U = '\u0015';
const TAB = '\t';
const SCREEN_TIMEOUT_MS = 10_000;

// React runs a render's effects (where Ink attaches a question's key handler) inside act() before it returns.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/**
 * The wizard driven as a person would: each key is sent once the screen shows the effect of the one before.
 * Ink attaches a component's key handler in an effect that runs after the screen is drawn, so a key sent the
 * moment a question appears could reach the question just left; every key is sent inside act(), which returns
 * once React has run those effects, and the driver then waits on what the screen shows.
 */
async function driveWizard(dir: string) {
  let exitCode: number | undefined;
  let rendered!: ReturnType<typeof render>;
  await act(async () => {
    rendered = render(<Wizard dir={dir} force={false} onExit={(code) => (exitCode = code)} />);
  });
  const { stdin, lastFrame } = rendered;
  const screen = () => lastFrame() ?? '';

  /** Polls the screen. Each pause is an act() scope, as writing the files ends with an update while it waits. */
  async function waitFor(check: (frame: string) => boolean, what: string): Promise<void> {
    const started = Date.now();
    while (!check(screen())) {
      if (Date.now() - started > SCREEN_TIMEOUT_MS) throw new Error(`never saw ${what}; last frame:\n${screen()}`);
      await act(() => new Promise((resolve) => setTimeout(resolve, 5)));
    }
  }

  /** One key, or a run of typed text (Ink reads a run of characters as one key). */
  const send = (key: string) => act(async () => void stdin.write(key));

  return {
    screen,
    exitCode: () => exitCode,
    waitFor,
    /** Waits until the screen shows `text`. */
    see: (text: string) => waitFor((frame) => frame.includes(text), JSON.stringify(text)),
    /** Sends a key and waits until the screen changes. */
    async press(key: string): Promise<void> {
      const before = screen();
      await send(key);
      await waitFor((frame) => frame !== before, `the effect of ${JSON.stringify(key)}`);
    },
    /** Sends a key and waits until the screen shows `text`. */
    async pressUntil(key: string, text: string): Promise<void> {
      await send(key);
      await waitFor((frame) => frame.includes(text), JSON.stringify(text));
    },
    /** A key whose effect the screen does not show (which field has the focus): what is typed next tells. */
    focusKey: (key: typeof TAB | typeof ENTER) => send(key),
    /** Sends a burst of keys as one chunk (as a terminal does when keys repeat fast) and waits for `text`. */
    async burstUntil(keys: string, text: string): Promise<void> {
      await send(keys);
      await waitFor((frame) => frame.includes(text), JSON.stringify(text));
    },
  };
}

describe('push-kit init wizard', () => {
  it('takes defaults on Enter, refuses a wrong origin inline, goes back from the summary and writes the files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pk-wizard-'));
    const wizard = await driveWizard(dir);
    const { see, press, pressUntil, burstUntil, focusKey, screen } = wizard;
    await see('Company name: My Site');

    // typing replaces the default shown as the placeholder; pasted text ending in Enter is kept and submitted
    await pressUntil(`Acme Inks${ENTER}`, 'Config name: acme-inks');
    await pressUntil(ENTER, 'Site origin');

    expect(screen()).toContain('child window');
    await pressUntil('not a url', 'Site origin: not a url');
    await pressUntil(ENTER, 'must be an absolute http(s) URL');
    expect(screen()).toContain('Site origin');
    await pressUntil(CTRL_U, 'Site origin: http://localhost:8080');
    // a trailing slash is dropped: the sample URLs below have one slash
    await pressUntil('https://acme.example/', 'Site origin: https://acme.example/');
    await pressUntil(ENTER, 'Provider URL');
    expect(screen()).not.toContain('serverSyncUrl');
    // an https site's pages cannot call an http provider (mixed content); localhost, the default, is exempt
    await pressUntil('http://push.acme.example', 'Provider URL: http://push.acme.example');
    await pressUntil(ENTER, '✖ must be an https URL');
    await pressUntil(CTRL_U, 'Provider URL: http://localhost:8787');
    await pressUntil(ENTER, 'Prompt style');
    expect(screen()).not.toMatch(/pcBranding|isNativeOptin|isMobileEnabled/);

    await press(DOWN); // branded box
    await pressUntil(ENTER, 'Offer text');
    expect(screen()).toContain('Acme Inks wants to notify you when there is something new.');
    // the branded box has an Allow button (an https site without it would not be asked)
    await pressUntil(ENTER, 'Allow button text');
    await pressUntil(ENTER, 'Show the prompt on');

    expect(screen()).toContain('https://acme.example/ qualifies');
    await pressUntil('/blog/*', 'https://acme.example/ not included');
    await pressUntil(ENTER, 'Never show it on');

    expect(screen()).toMatch(/^❯ Never show it on/m);
    await focusKey(TAB); // to the sample URL
    await see('❯ Sample URL');
    await pressUntil('https://acme.example/blog/drafts/1', 'https://acme.example/blog/drafts/1 qualifies');
    await focusKey(ENTER); // back to the patterns
    await see('❯ Never show it on');
    await pressUntil('/blog/drafts/*', 'https://acme.example/blog/drafts/1 excluded');
    await pressUntil(ENTER, 'Show the prompt after');

    await pressUntil('soon', 'soon');
    await pressUntil(ENTER, '✖ type a number of seconds, e.g. 5');
    await burstUntil(BACKSPACE.repeat(6), 'Show the prompt after (seconds): 5');
    // eslint-disable-next-line no-control-regex
    expect(screen()).not.toMatch(/[\u0000-\u0008\u007f]/);
    await pressUntil('12', 'seconds): 12');
    await pressUntil(ENTER, 'track the pages they click');
    expect(screen()).not.toContain('pageClickTrackingConcent');

    await press(DOWN);
    await pressUntil(ENTER, 'online shop');
    await pressUntil(ENTER, 'First segment id');
    expect(screen()).toContain('The name you send to: push-kit send --segment ID (e.g. readers).');
    await pressUntil('readers', 'First segment id (empty for none): readers');
    await pressUntil(ENTER, 'Condition of segment readers');
    expect(screen()).toContain('e.g. path startsWith "/pricing"');
    await pressUntil('url contains', 'readers: url contains');
    await pressUntil(ENTER, '✖');
    await pressUntil(' "/blog"', 'url contains "/blog"');
    await pressUntil(ENTER, 'Summary');

    expect(screen()).toContain('Company name: Acme Inks');
    // Back to the company name (second row), change it, return to the summary.
    await press(DOWN);
    await pressUntil(ENTER, 'Company name: Acme Inks');
    await pressUntil('Acme Pens', 'Company name: Acme Pens');
    await pressUntil(ENTER, 'Summary');
    expect(screen()).toContain('Company name: Acme Pens');
    expect(screen()).toContain('Config name: acme-pens');
    expect(screen()).toContain('Acme Pens wants to notify you');
    await pressUntil(ENTER, 'npx push-kit build site-configs/acme-pens.json');

    await wizard.waitFor(() => wizard.exitCode() !== undefined, 'the wizard exit');
    expect(wizard.exitCode()).toBe(0);
    expect(screen()).toContain('npx push-kit dev site-configs/acme-pens.json');

    const text = await readFile(join(dir, 'site-configs', 'acme-pens.json'), 'utf8');
    // an https site has no child window: none of its texts are written
    expect(text).not.toContain('ChildWindow');
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
      texts: { offer: 'Acme Pens wants to notify you when there is something new.' },
    });
    expect(config.triggers.delaySeconds).toBe(12);
    const keyFile = join(dir, '.push-kit', 'keys', 'acme-pens.json');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const keys = JSON.parse(await readFile(keyFile, 'utf8')) as { publicKey: string; privateKey: string };
    expect(config.vapidPublicKey).toBe(keys.publicKey);
    expect(text).not.toContain(keys.privateKey);
  }, 30_000);

  it('proposes a segment condition hint that the condition language accepts', () => {
    const answers = { ...defaultAnswers(), segmentSid: '1', segmentCondition: SEGMENT_CONDITION_EXAMPLE };
    expect(validateAnswer(answers, 'segmentCondition')).toBeUndefined();
  });
});
