import React from 'react';
import { ChoiceField } from '../fields/ChoiceField.tsx';
import type { PromptStyle as PromptStyleValue } from '../answers.ts';
import type { QuestionProps } from './types.ts';

export const PROMPT_STYLE_LABELS: Record<PromptStyleValue, string> = {
  native: "Native: the browser's own permission prompt",
  modal: 'Branded box with your icon and text, then the browser prompt',
  chicklet: "Small box at the bottom left with 'Yes' and 'No' buttons",
  mobile: 'On phones, a box with a close button',
};

export function PromptStyle({ answers, onAnswer }: QuestionProps) {
  return (
    <ChoiceField
      label="Prompt style"
      choices={(Object.keys(PROMPT_STYLE_LABELS) as PromptStyleValue[]).map((value) => ({
        value,
        label: PROMPT_STYLE_LABELS[value],
      }))}
      initial={answers.promptStyle}
      onSubmit={(promptStyle) => onAnswer({ promptStyle })}
    />
  );
}
