import React, { useState } from 'react';
import { Box, Text, useInput } from 'ink';
import TextInput from 'ink-text-input';
import { SampleUrlVerdict } from '../fields/SampleUrlVerdict.tsx';
import { parsePatternList, validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

/** Exclude patterns, with a sample URL the owner can edit (Tab switches fields) checked as they type. */
export function ExcludeUrls({ answers, onAnswer }: QuestionProps) {
  const [text, setText] = useState(answers.excludeUrls.join(', '));
  const [sampleUrl, setSampleUrl] = useState(`${answers.origin}/checkout`);
  const [editingSample, setEditingSample] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const submit = () => {
    const excludeUrls = parsePatternList(text);
    const problem = validateAnswer({ ...answers, excludeUrls }, 'excludeUrls');
    setError(problem);
    if (!problem) onAnswer({ excludeUrls });
  };
  return (
    <Box flexDirection="column">
      <Box>
        <Text bold>Never show it on (URL patterns, comma-separated, empty for none): </Text>
        <TextInput
          value={text}
          focus={!editingSample}
          onChange={(value) => {
            setText(value);
            setError(undefined);
          }}
          onSubmit={submit}
        />
      </Box>
      <Box>
        <Text dimColor>Sample URL (Tab to edit): </Text>
        <TextInput value={sampleUrl} focus={editingSample} onChange={setSampleUrl} onSubmit={() => setEditingSample(false)} />
      </Box>
      <SampleUrlVerdict sampleUrl={sampleUrl} includeUrls={answers.includeUrls} excludeUrls={parsePatternList(text)} />
      <TabToggle onTab={() => setEditingSample((current) => !current)} />
      {error ? <Text color="red">✖ {error}</Text> : null}
    </Box>
  );
}
function TabToggle({ onTab }: { onTab: () => void }) {
  useInput((_input, key) => {
    if (key.tab) onTab();
  });
  return null;
}
