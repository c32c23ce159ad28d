import React from 'react';
import { TextField } from '../fields/TextField.tsx';
import { validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

export function AllowText({ answers, onAnswer }: QuestionProps) {
  return (
    <TextField
      label="Allow button text"
      initial={answers.allowText}
      validate={(allowText) => validateAnswer({ ...answers, allowText }, 'allowText')}
      onSubmit={(allowText) => onAnswer({ allowText })}
    />
  );
}
