import React from 'react';
import { TextField } from '../fields/TextField.tsx';
import { validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

export function OfferText({ answers, onAnswer }: QuestionProps) {
  return (
    <TextField
      label="Offer text"
      initial={answers.offerText}
      validate={(offerText) => validateAnswer({ ...answers, offerText }, 'offerText')}
      onSubmit={(offerText) => onAnswer({ offerText })}
    />
  );
}
