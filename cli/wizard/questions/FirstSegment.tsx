import React, { useState } from 'react';
import { TextField } from '../fields/TextField.tsx';
import { validateAnswer } from '../answers.ts';
import type { QuestionProps } from './types.ts';

/** A condition the language accepts (a test compiles it), for the owner to copy. */
export const SEGMENT_CONDITION_EXAMPLE = 'path startsWith "/pricing"';
const SEGMENT_CONDITION_HINT = `e.g. ${SEGMENT_CONDITION_EXAMPLE} (docs/conditions.md)`;
/** What a segment id is: the name pages, the provider and `send --segment` know a group of visitors by. */
export const SEGMENT_ID_HINT =
  'The name you send to: push-kit send --segment ID (e.g. readers). A segment groups the visitors its condition picks.';

/** Optional: an id, then its condition; an empty id skips the segment. */
export function FirstSegment({ answers, onAnswer }: QuestionProps) {
  const [sid, setSid] = useState<string | undefined>();
  if (sid === undefined) {
    return (
      <TextField
        key="sid"
        label="First segment id (empty for none)"
        hint={SEGMENT_ID_HINT}
        initial={answers.segmentSid}
        validate={(text) =>
          text === '' ? undefined : validateAnswer({ ...answers, segmentSid: text, segmentCondition: 'true' }, 'segmentSid')
        }
        onSubmit={(text) => (text === '' ? onAnswer({ segmentSid: '', segmentCondition: '' }) : setSid(text))}
      />
    );
  }
  return (
    <TextField
      key="condition"
      label={`Condition of segment ${sid}`}
      hint={SEGMENT_CONDITION_HINT}
      initial={answers.segmentCondition}
      validate={(text) => validateAnswer({ ...answers, segmentSid: sid, segmentCondition: text }, 'segmentCondition')}
      onSubmit={(text) => onAnswer({ segmentSid: sid, segmentCondition: text })}
    />
  );
}
