// A choice among a few options: up/down arrows move, Enter picks.
import React, { useState } from 'react';
import { Box, Text, useInput } from 'ink';

export interface Choice<T> {
  value: T;
  label: string;
}

export interface ChoiceFieldProps<T> {
  label: string;
  hint?: string;
  choices: Array<Choice<T>>;
  initial: T;
  onSubmit: (value: T) => void;
}

export function ChoiceField<T>({ label, hint, choices, initial, onSubmit }: ChoiceFieldProps<T>) {
  const [index, setIndex] = useState(
    Math.max(
      0,
      choices.findIndex((choice) => choice.value === initial),
    ),
  );
  useInput((_input, key) => {
    if (key.upArrow) setIndex((current) => (current + choices.length - 1) % choices.length);
    else if (key.downArrow) setIndex((current) => (current + 1) % choices.length);
    else if (key.return) onSubmit(choices[index]!.value);
  });
  return (
    <Box flexDirection="column">
      <Text bold>{label}</Text>
      {hint ? <Text dimColor>{hint}</Text> : null}
      {choices.map((choice, position) => (
        <Text key={choice.label} color={position === index ? 'cyan' : undefined}>
          {position === index ? '❯ ' : '  '}
          {choice.label}
        </Text>
      ))}
    </Box>
  );
}
