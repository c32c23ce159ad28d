import type { WizardAnswers } from '../answers.ts';

/** Every question gets the answers so far and hands back the fields it changed. */
export interface QuestionProps {
  answers: WizardAnswers;
  onAnswer: (changes: Partial<WizardAnswers>) => void;
}
