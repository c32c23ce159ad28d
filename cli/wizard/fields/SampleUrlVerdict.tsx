import React from 'react';
import { Text } from 'ink';
import { sampleUrlVerdict } from '../answers.ts';

/** The live check: does a sample URL of the site get the prompt under these patterns? */
export function SampleUrlVerdict({
  sampleUrl,
  includeUrls,
  excludeUrls,
}: {
  sampleUrl: string;
  includeUrls: string[];
  excludeUrls: string[];
}) {
  const verdict = sampleUrlVerdict(sampleUrl, includeUrls, excludeUrls);
  const color = verdict === 'qualifies' ? 'green' : verdict === 'excluded' || verdict === 'not included' ? 'yellow' : 'red';
  return (
    <Text>
      {sampleUrl} <Text color={color}>{verdict}</Text>
    </Text>
  );
}
