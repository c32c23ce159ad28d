import React from 'react';
import { TextField } from '../fields/TextField.tsx';
import { validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

/** A number typed as text; text that is not a number becomes NaN, which the schema refuses by name. */
function secondsOf(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

export function DelaySeconds({ answers, onAnswer }: QuestionProps) {
  return (
    <TextField
      label="Show the prompt after (seconds)"
      initial={String(answers.delaySeconds)}
      validate={(text) => validateAnswer({ ...answers, delaySeconds: secondsOf(text) }, 'delaySeconds')}
      onSubmit={(text) => onAnswer({ delaySeconds: secondsOf(text) })}
    />
  );
}
