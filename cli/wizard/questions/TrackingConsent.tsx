import React from 'react';
import { ChoiceField } from '../fields/ChoiceField.tsx';
import type { QuestionProps } from './types.ts';

export function TrackingConsent({ answers, onAnswer }: QuestionProps) {
  return (
    <ChoiceField
      label="Ask visitors whether you may track the pages they click?"
      choices={[
        { value: false, label: 'No' },
        { value: true, label: 'Yes, with a checkbox' },
      ]}
      initial={answers.trackingConsent}
      onSubmit={(trackingConsent) => onAnswer({ trackingConsent })}
    />
  );
}
