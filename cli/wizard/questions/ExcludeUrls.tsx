import React, { useState } from 'react';
import { Box, Text, useInput } from 'ink';
import { LineInput } from '../fields/LineInput.tsx';
import { SampleUrlVerdict } from '../fields/SampleUrlVerdict.tsx';
import { parsePatternList, validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

const FOCUSED = '❯ ';
const UNFOCUSED = '  ';

/** Exclude patterns, with a sample URL the owner can edit (Tab switches fields) checked as they type. */
export function ExcludeUrls({ answers, onAnswer }: QuestionProps) {
  const initial = answers.excludeUrls.join(', ');
  const sampleInitial = `${answers.origin}/checkout`;
  const [text, setText] = useState('');
  const [sampleUrl, setSampleUrl] = useState('');
  const [editingSample, setEditingSample] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const patterns = (typed: string) => parsePatternList(typed === '' ? initial : typed);
  const submit = (typed: string) => {
    const excludeUrls = patterns(typed);
    const problem = validateAnswer({ ...answers, excludeUrls }, 'excludeUrls');
    setError(problem);
    if (!problem) onAnswer({ excludeUrls });
  };
  return (
    <Box flexDirection="column">
      <Box>
        <Text color={editingSample ? undefined : 'cyan'}>{editingSample ? UNFOCUSED : FOCUSED}</Text>
        <Text bold>Never show it on (URL patterns, comma-separated, empty for none): </Text>
        <LineInput
          placeholder={initial}
          focus={!editingSample}
          onChange={(value) => {
            setText(value);
            setError(undefined);
          }}
          onSubmit={submit}
        />
      </Box>
      <Box>
        <Text color={editingSample ? 'cyan' : undefined}>{editingSample ? FOCUSED : UNFOCUSED}</Text>
        <Text dimColor>Sample URL (Tab to edit): </Text>
        <LineInput placeholder={sampleInitial} focus={editingSample} onChange={setSampleUrl} onSubmit={() => setEditingSample(false)} />
      </Box>
      <SampleUrlVerdict sampleUrl={sampleUrl || sampleInitial} includeUrls={answers.includeUrls} excludeUrls={patterns(text)} />
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
