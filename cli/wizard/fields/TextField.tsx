// A one-line text answer: Enter submits only when `validate` finds nothing; the problem shows under the field.
import React, { useState } from 'react';
import { Box, Text } from 'ink';
import TextInput from 'ink-text-input';

export interface TextFieldProps {
  label: string;
  hint?: string;
  initial: string;
  /** The schema's message for this text, or undefined when it is acceptable. */
  validate: (text: string) => string | undefined;
  onSubmit: (text: string) => void;
  /** Shown live under the input, e.g. the sample-URL verdict. */
  live?: (text: string) => React.ReactNode;
}

export function TextField({ label, hint, initial, validate, onSubmit, live }: TextFieldProps) {
  const [text, setText] = useState(initial);
  const [error, setError] = useState<string | undefined>();
  const submit = (value: string) => {
    const problem = validate(value);
    setError(problem);
    if (!problem) onSubmit(value);
  };
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold>{label}: </Text>
        <TextInput
          value={text}
          onChange={(value) => {
            setText(value);
            setError(undefined);
          }}
          onSubmit={submit}
        />
      </Box>
      {hint ? <Text dimColor>{hint}</Text> : null}
      {live ? live(text) : null}
      {error ? <Text color="red">✖ {error}</Text> : null}
    </Box>
  );
}
