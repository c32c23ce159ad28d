// Chains the questions, then the summary, the overwrite question when needed, and the writing of the files.
import React, { useState } from 'react';
import { Box, Text } from 'ink';
import { isAsked, QUESTIONS } from './questions/index.ts';
import { Summary } from './Summary.tsx';
import { OverwriteConfirm } from './OverwriteConfirm.tsx';
import { defaultAnswers, type WizardAnswers } from './answers.ts';
import { fileExists, nextStepsText, siteConfigPath, writeSite } from './write-site.ts';

export interface WizardProps {
  dir: string;
  force: boolean;
  /** Called once the wizard is over: 0 when the files are written. */
  onExit: (exitCode: number) => void;
}

type Stage =
  | { kind: 'question'; index: number; backToSummary: boolean }
  | { kind: 'summary' }
  | { kind: 'overwrite' }
  | { kind: 'writing' }
  | { kind: 'done'; text: string }
  | { kind: 'failed'; text: string };

export function Wizard({ dir, force, onExit }: WizardProps) {
  const [answers, setAnswers] = useState<WizardAnswers>(defaultAnswers);
  const [stage, setStage] = useState<Stage>({ kind: 'question', index: 0, backToSummary: false });

  const write = (current: WizardAnswers) => {
    setStage({ kind: 'writing' });
    writeSite(dir, current).then(
      (written) => {
        setStage({ kind: 'done', text: nextStepsText(written, current.name, dir) });
        onExit(0);
      },
      (error: unknown) => {
        setStage({ kind: 'failed', text: `Nothing was written: ${(error as Error).message}` });
        onExit(1);
      },
    );
  };

  const confirm = async () => {
    if (!force && (await fileExists(siteConfigPath(dir, answers.name)))) setStage({ kind: 'overwrite' });
    else write(answers);
  };

  if (stage.kind === 'question') {
    const question = QUESTIONS[stage.index]!;
    const onAnswer = (changes: Partial<WizardAnswers>) => {
      const updated = { ...answers, ...changes };
      setAnswers(updated);
      let next = stage.index + 1;
      while (next < QUESTIONS.length && !isAsked(next, updated)) next += 1;
      setStage(
        stage.backToSummary || next >= QUESTIONS.length ? { kind: 'summary' } : { kind: 'question', index: next, backToSummary: false },
      );
    };
    return (
      <Box flexDirection="column">
        <Text dimColor>
          push-kit init · question {stage.index + 1} of {QUESTIONS.length}
        </Text>
        <question.Component key={stage.index} answers={answers} onAnswer={onAnswer} />
      </Box>
    );
  }
  if (stage.kind === 'summary') {
    return (
      <Summary
        answers={answers}
        onConfirm={() => void confirm()}
        onChange={(index) => setStage({ kind: 'question', index, backToSummary: true })}
      />
    );
  }
  if (stage.kind === 'overwrite') {
    return (
      <OverwriteConfirm
        file={siteConfigPath(dir, answers.name)}
        onAnswer={(overwrite) => (overwrite ? write(answers) : setStage({ kind: 'summary' }))}
      />
    );
  }
  if (stage.kind === 'writing') return <Text>Writing…</Text>;
  return <Text color={stage.kind === 'failed' ? 'red' : undefined}>{stage.text}</Text>;
}
