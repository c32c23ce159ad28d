// The answers at a glance: Enter on "Write the config" confirms, Enter on an answer goes back to change it.
import React, { useState } from 'react';
import { Box, Text, useInput } from 'ink';
import { isAsked, QUESTIONS } from './questions/index.ts';
import type { WizardAnswers } from './answers.ts';

export interface SummaryProps {
  answers: WizardAnswers;
  onConfirm: () => void;
  onChange: (questionIndex: number) => void;
}

export function Summary({ answers, onConfirm, onChange }: SummaryProps) {
  // Row 0 confirms; row i + 1 changes the i-th question asked (one that does not apply is not shown).
  const asked = QUESTIONS.flatMap((question, index) => (isAsked(index, answers) ? [{ question, index }] : []));
  const [row, setRow] = useState(0);
  const rows = asked.length + 1;
  useInput((_input, key) => {
    if (key.upArrow) setRow((current) => (current + rows - 1) % rows);
    else if (key.downArrow) setRow((current) => (current + 1) % rows);
    else if (key.return) {
      if (row === 0) onConfirm();
      else onChange(asked[row - 1]!.index);
    }
  });
  return (
    <Box flexDirection="column">
      <Text bold>Summary (arrows to move, Enter to pick)</Text>
      <Text color={row === 0 ? 'cyan' : undefined}>{row === 0 ? '❯ ' : '  '}Write the config</Text>
      {asked.map(({ question }, position) => (
        <Text key={question.title} color={row === position + 1 ? 'cyan' : undefined}>
          {row === position + 1 ? '❯ ' : '  '}
          {question.title}: {question.show(answers)}
        </Text>
      ))}
    </Box>
  );
}
