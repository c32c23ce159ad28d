import React from 'react';
import { ChoiceField } from '../fields/ChoiceField.tsx';
import type { QuestionProps } from './types.ts';

export function ShopConnection({ answers, onAnswer }: QuestionProps) {
  return (
    <ChoiceField
      label="Is the site an online shop?"
      choices={[
        { value: false, label: 'No' },
        { value: true, label: 'Yes: track cart and order events' },
      ]}
      initial={answers.shopConnected}
      onSubmit={(shopConnected) => onAnswer({ shopConnected })}
    />
  );
}
