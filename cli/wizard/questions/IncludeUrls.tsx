import React from 'react';
import { TextField } from '../fields/TextField.tsx';
import { SampleUrlVerdict } from '../fields/SampleUrlVerdict.tsx';
import { parsePatternList, validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

export function IncludeUrls({ answers, onAnswer }: QuestionProps) {
  return (
    <TextField
      label="Show the prompt on (URL patterns, comma-separated)"
      hint='"*", "/path/*", "https://host/*", "contains:text" or "regex:..."'
      initial={answers.includeUrls.join(', ')}
      validate={(text) => validateAnswer({ ...answers, includeUrls: parsePatternList(text) }, 'includeUrls')}
      onSubmit={(text) => onAnswer({ includeUrls: parsePatternList(text) })}
      live={(text) => (
        <SampleUrlVerdict sampleUrl={`${answers.origin}/`} includeUrls={parsePatternList(text)} excludeUrls={answers.excludeUrls} />
      )}
    />
  );
}
