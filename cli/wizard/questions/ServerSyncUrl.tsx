import React from 'react';
import { TextField } from '../fields/TextField.tsx';
import { validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

export function ServerSyncUrl({ answers, onAnswer }: QuestionProps) {
  return (
    <TextField
      label="Provider URL"
      hint="Where `push-kit serve` runs: the address your visitors' browsers reach it at."
      initial={answers.serverSyncUrl}
      validate={(serverSyncUrl) => validateAnswer({ ...answers, serverSyncUrl }, 'serverSyncUrl')}
      onSubmit={(serverSyncUrl) => onAnswer({ serverSyncUrl })}
    />
  );
}
