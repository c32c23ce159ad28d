// The wizard's line input as a terminal drives it: the bytes a terminal sends for each key, through Ink.
import React, { act } from 'react';
import { describe, expect, it } from 'vitest';
import { render } from 'ink-testing-library';
import { LineInput } from '../../cli/wizard/fields/LineInput.tsx';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const KEYS = {
  home: '\u001B[H',
  end: '\u001B[F',
  left: '\u001B[D',
  ctrlA: '\u0001',
  ctrlE: '\u0005',
  ctrlU: '\u0015',
  ctrlW: '\u0017',
  backspace: '\u007F',
  enter: '\r',
};

async function lineInput(placeholder = '') {
  const submitted: string[] = [];
  let text = '';
  let rendered!: ReturnType<typeof render>;
  await act(async () => {
    rendered = render(
      <LineInput placeholder={placeholder} onChange={(value) => (text = value)} onSubmit={(value) => submitted.push(value)} />,
    );
  });
  return {
    /** Writes the bytes as one chunk, as a terminal does for a key (or a burst of keys). */
    type: (bytes: string) => act(async () => void rendered.stdin.write(bytes)),
    text: () => text,
    frame: () => rendered.lastFrame() ?? '',
    submitted,
  };
}

describe('the wizard line input', () => {
  it('shows the placeholder while empty and submits what was typed', async () => {
    const input = await lineInput('http://localhost:8080');
    expect(input.frame()).toBe('http://localhost:8080');
    await input.type('https://acme.example');
    expect(input.frame().trimEnd()).toBe('https://acme.example');
    await input.type(KEYS.enter);
    expect(input.submitted).toEqual(['https://acme.example']);
  });

  it('keeps pasted text that ends in Enter, and submits it', async () => {
    const input = await lineInput('placeholder');
    await input.type(`https://pasted.example${KEYS.enter}`);
    expect(input.submitted).toEqual(['https://pasted.example']);
    expect(input.text()).toBe('https://pasted.example');
  });

  it('moves with Home/End and Ctrl-A/Ctrl-E and inserts at the cursor', async () => {
    const input = await lineInput();
    await input.type('pens');
    await input.type(KEYS.home);
    await input.type('Acme ');
    expect(input.text()).toBe('Acme pens');
    await input.type(KEYS.end);
    await input.type('!');
    expect(input.text()).toBe('Acme pens!');
    await input.type(KEYS.ctrlA);
    await input.type('[');
    await input.type(KEYS.ctrlE);
    await input.type(']');
    expect(input.text()).toBe('[Acme pens!]');
  });

  it('erases to the start with Ctrl-U and the word before the cursor with Ctrl-W', async () => {
    const input = await lineInput();
    await input.type('url contains "/blog"');
    await input.type(KEYS.ctrlW);
    expect(input.text()).toBe('url contains ');
    await input.type(KEYS.ctrlW);
    expect(input.text()).toBe('url ');
    await input.type('path');
    await input.type(KEYS.left);
    await input.type(KEYS.left);
    await input.type(KEYS.ctrlU);
    expect(input.text()).toBe('th');
  });

  it('erases one character per Backspace when a burst arrives as one chunk, keeping no control character', async () => {
    const input = await lineInput('5');
    await input.type('soon');
    await input.type(KEYS.backspace.repeat(3));
    expect(input.text()).toBe('s');
    await input.type(KEYS.backspace.repeat(5));
    expect(input.text()).toBe('');
    expect(input.frame()).toBe('5');
    await input.type('1\u0007\u00022');
    expect(input.text()).toBe('12');
  });
});
