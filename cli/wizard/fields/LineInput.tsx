// One line of text input with the keys a shell user expects: arrows, Home/End and Ctrl-A/Ctrl-E move,
// Backspace/Delete, Ctrl-U (to the start) and Ctrl-W (the word before the cursor) erase. An empty line shows
// its placeholder, which is what Enter then takes. Typed text never keeps a control character; pasted text ending
// in Enter is kept and submitted.
import React, { useRef, useState } from 'react';
import { Text, useInput } from 'ink';

export interface LineInputProps {
  /** Shown dimmed while the line is empty. */
  placeholder?: string;
  /** Only the focused input reads keys and shows the cursor. */
  focus?: boolean;
  onChange?: (text: string) => void;
  onSubmit: (text: string) => void;
}

interface Line {
  text: string;
  cursor: number;
}

// A terminal's Backspace sends DEL (0x7f) or BS (0x08); a burst of them can reach Ink as one chunk of "text".
const ERASE_CHARACTERS = new Set(['\u007f', '\b']);
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

function eraseBefore(line: Line, count: number): Line {
  const start = Math.max(0, line.cursor - count);
  return { text: line.text.slice(0, start) + line.text.slice(line.cursor), cursor: start };
}

/** The characters of `input` as typed at the cursor: erase characters erase, other control characters drop. */
function typed(line: Line, input: string): Line {
  let next = line;
  for (const character of input) {
    if (ERASE_CHARACTERS.has(character)) next = eraseBefore(next, 1);
    else if (!CONTROL_CHARACTER.test(character))
      next = { text: next.text.slice(0, next.cursor) + character + next.text.slice(next.cursor), cursor: next.cursor + character.length };
  }
  return next;
}

/** Ctrl-W: the word before the cursor and the spaces after it. */
function eraseWord(line: Line): Line {
  const before = line.text.slice(0, line.cursor);
  const kept = before.replace(/\S*\s*$/, '');
  return eraseBefore(line, before.length - kept.length);
}

export function LineInput({ placeholder = '', focus = true, onChange, onSubmit }: LineInputProps) {
  // Keys can arrive faster than React renders: each one applies to the line the previous one left.
  const current = useRef<Line>({ text: '', cursor: 0 });
  const [line, setLine] = useState<Line>(current.current);
  const update = (next: Line) => {
    const changed = next.text !== current.current.text;
    current.current = next;
    setLine(next);
    if (changed) onChange?.(next.text);
  };

  useInput(
    (input, key) => {
      const now = current.current;
      if (key.return) onSubmit(now.text);
      else if (key.home || (key.ctrl && input === 'a')) update({ ...now, cursor: 0 });
      else if (key.end || (key.ctrl && input === 'e')) update({ ...now, cursor: now.text.length });
      else if (key.leftArrow) update({ ...now, cursor: Math.max(0, now.cursor - 1) });
      else if (key.rightArrow) update({ ...now, cursor: Math.min(now.text.length, now.cursor + 1) });
      else if (key.ctrl && input === 'u') update(eraseBefore(now, now.cursor));
      else if (key.ctrl && input === 'w') update(eraseWord(now));
      else if (key.backspace || key.delete) update(eraseBefore(now, 1));
      else if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.pageUp || key.pageDown) return;
      else {
        // a paste arrives as one chunk: an Enter at its end (or inside) submits what came before it
        const enter = input.search(/[\r\n]/);
        if (enter === -1) return update(typed(now, input));
        const line = typed(now, input.slice(0, enter));
        update(line);
        onSubmit(line.text);
      }
    },
    { isActive: focus },
  );

  if (line.text === '') {
    const [first = ' ', ...rest] = placeholder;
    return (
      <Text>
        {focus ? <Text inverse>{first}</Text> : <Text dimColor>{first}</Text>}
        <Text dimColor>{rest.join('')}</Text>
      </Text>
    );
  }
  if (!focus) return <Text>{line.text}</Text>;
  return (
    <Text>
      {line.text.slice(0, line.cursor)}
      <Text inverse>{line.text[line.cursor] ?? ' '}</Text>
      {line.text.slice(line.cursor + 1)}
    </Text>
  );
}
