import React from 'react';
import { ChoiceField } from './fields/ChoiceField.tsx';

export function OverwriteConfirm({ file, onAnswer }: { file: string; onAnswer: (overwrite: boolean) => void }) {
  return (
    <ChoiceField
      label={`${file} already exists. Overwrite it?`}
      choices={[
        { value: false, label: 'No, go back to the summary' },
        { value: true, label: 'Yes, overwrite it' },
      ]}
      initial={false}
      onSubmit={onAnswer}
    />
  );
}
