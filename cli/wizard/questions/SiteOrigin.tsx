import React from 'react';
import { TextField } from '../fields/TextField.tsx';
import { normalizeOrigin, validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

export function SiteOrigin({ answers, onAnswer }: QuestionProps) {
  return (
    <TextField
      label="Site origin"
      hint="e.g. https://example.com. An http site subscribes through the provider's child window."
      initial={answers.origin}
      validate={(origin) => validateAnswer({ ...answers, origin: normalizeOrigin(origin) }, 'origin')}
      onSubmit={(origin) => onAnswer({ origin: normalizeOrigin(origin) })}
    />
  );
}
