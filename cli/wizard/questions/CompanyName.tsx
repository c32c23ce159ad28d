import React from 'react';
import { TextField } from '../fields/TextField.tsx';
import { slugify, validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

export function CompanyName({ answers, onAnswer }: QuestionProps) {
  return (
    <TextField
      label="Company name"
      initial={answers.companyName}
      validate={(companyName) => validateAnswer({ ...answers, companyName }, 'companyName')}
      onSubmit={(companyName) =>
        onAnswer(
          // The config name follows the company name until the owner edits it.
          answers.name === slugify(answers.companyName) ? { companyName, name: slugify(companyName) } : { companyName },
        )
      }
    />
  );
}
