import React from 'react';
import { TextField } from '../fields/TextField.tsx';
import { validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

export function ConfigName({ answers, onAnswer }: QuestionProps) {
  return (
    <TextField
      label="Config name"
      hint={`The file site-configs/<name>.json and the bundle folder dist/<name>/.`}
      initial={answers.name}
      validate={(name) => validateAnswer({ ...answers, name }, 'name')}
      onSubmit={(name) => onAnswer({ name })}
    />
  );
}
