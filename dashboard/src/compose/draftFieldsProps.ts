import type { Draft } from './draft.ts';
import type { DraftProblems } from './draftProblems.ts';

export type ChangeDraft = <K extends keyof Draft>(field: K, value: Draft[K]) => void;

/** What each part of the compose form gets: the draft, the problems to show now, and a way to change a field. */
export interface DraftFieldsProps {
  draft: Draft;
  shown: DraftProblems;
  change: ChangeDraft;
}

/** The id of the problem a field's control is described by, when one is shown. */
export const problemIdOf = (shown: DraftProblems, id: string) => (shown[id] ? `${id}-problem` : undefined);
