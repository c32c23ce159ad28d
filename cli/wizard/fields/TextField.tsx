// A one-line text answer. The current answer (a default, or what was answered before) is the placeholder:
// Enter takes it, typing replaces it. Enter submits only when `validate` finds nothing; the problem shows under
// the field.
import React, { useState } from 'react';
import { Box, Text } from 'ink';
import { LineInput } from './LineInput.tsx';

export interface TextFieldProps {
  label: string;
  hint?: string;
  initial: string;
  /** The message for this text, or undefined when it is acceptable. */
  validate: (text: string) => string | undefined;
  onSubmit: (text: string) => void;
  /** Shown live under the input, e.g. the sample-URL verdict. */
  live?: (text: string) => React.ReactNode;
}

export function TextField({ label, hint, initial, validate, onSubmit, live }: TextFieldProps) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const answer = (typed: string) => (typed === '' ? initial : typed);
  const submit = (typed: string) => {
    const value = answer(typed);
    const problem = validate(value);
    setError(problem);
    if (!problem) onSubmit(value);
  };
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold>{label}: </Text>
        <LineInput
          placeholder={initial}
          onChange={(value) => {
            setText(value);
            setError(undefined);
          }}
          onSubmit={submit}
        />
      </Box>
      {hint ? <Text dimColor>{hint}</Text> : null}
      {live ? live(answer(text)) : null}
      {error ? <Text color="red">✖ {error}</Text> : null}
    </Box>
  );
}
