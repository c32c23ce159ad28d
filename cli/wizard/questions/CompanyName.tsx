import React from 'react';
import { TextField } from '../fields/TextField.tsx';
import { proposedOfferText, slugify, validateAnswer, type WizardAnswers } from '../answers.ts';
import type { QuestionProps } from './types.ts';

export function CompanyName({ answers, onAnswer }: QuestionProps) {
  return (
    <TextField
      label="Company name"
      initial={answers.companyName}
      validate={(companyName) => validateAnswer({ ...answers, companyName }, 'companyName')}
      onSubmit={(companyName) => {
        // The config name and the offer text follow the company name until the owner edits them.
        const changes: Partial<WizardAnswers> = { companyName };
        if (answers.name === slugify(answers.companyName)) changes.name = slugify(companyName);
        if (answers.offerText === proposedOfferText(answers.companyName)) changes.offerText = proposedOfferText(companyName);
        onAnswer(changes);
      }}
    />
  );
}
