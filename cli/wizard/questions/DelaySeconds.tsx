import React from 'react';
import { TextField } from '../fields/TextField.tsx';
import { validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

const NOT_A_NUMBER = 'type a number of seconds, e.g. 5';

function secondsOf(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

export function DelaySeconds({ answers, onAnswer }: QuestionProps) {
  return (
    <TextField
      label="Show the prompt after (seconds)"
      initial={String(answers.delaySeconds)}
      validate={(text) =>
        Number.isNaN(secondsOf(text)) ? NOT_A_NUMBER : validateAnswer({ ...answers, delaySeconds: secondsOf(text) }, 'delaySeconds')
      }
      onSubmit={(text) => onAnswer({ delaySeconds: secondsOf(text) })}
    />
  );
}
