import { campaignInputSchema } from '../../../contract/campaign-input.ts';
import {
  CAMPAIGN_ACTION_TITLE_MAX_LENGTH,
  CAMPAIGN_BODY_MAX_LENGTH,
  CAMPAIGN_TITLE_MAX_LENGTH,
  TIME_OF_DAY_PATTERN,
} from '../../../contract/campaign-limits.ts';
import { SUBSCRIBER_ID_PATTERN } from '../../../contract/ids.ts';
import { LANGUAGE_TAG_PATTERN, LANGUAGE_TAG_RULE } from '../../../contract/languages.ts';
import { campaignRequestOf } from './campaignRequest.ts';
import type { Draft } from './draft.ts';

/** Problems by the id of the form field they are about (`title`, `button0url`, `variant1-icon`, ...). */
export type DraftProblems = Record<string, string>;

export function urlProblem(value: string): string | null {
  if (!value) return null;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol) ? null : 'must start with http:// or https://';
  } catch {
    return 'must be an absolute URL, such as https://example.com/page';
  }
}

/** The form's own checks, worded for the field they sit under (a segment chosen, a date picked). */
export function formProblems(draft: Draft): DraftProblems {
  const problems: DraftProblems = {};
  if (!draft.title.trim()) problems.title = 'a title is required';
  else if (draft.title.length > CAMPAIGN_TITLE_MAX_LENGTH) problems.title = `at most ${CAMPAIGN_TITLE_MAX_LENGTH} characters`;
  if (!draft.body.trim()) problems.body = 'a message is required';
  else if (draft.body.length > CAMPAIGN_BODY_MAX_LENGTH) problems.body = `at most ${CAMPAIGN_BODY_MAX_LENGTH} characters`;
  for (const field of ['url', 'icon', 'image'] as const) {
    const problem = urlProblem(draft[field]);
    if (problem) problems[field] = problem;
  }
  draft.buttons.forEach((button, index) => {
    if (!button.title.trim()) problems[`button${index}`] = 'a button needs a label';
    else if (button.title.length > CAMPAIGN_ACTION_TITLE_MAX_LENGTH)
      problems[`button${index}`] = `at most ${CAMPAIGN_ACTION_TITLE_MAX_LENGTH} characters`;
    const problem = urlProblem(button.url);
    if (problem) problems[`button${index}url`] = problem;
  });
  const tags = new Set<string>();
  draft.languages.forEach((language, index) => {
    const tag = language.tag.trim();
    if (!LANGUAGE_TAG_PATTERN.test(tag)) problems[`language${index}-tag`] = LANGUAGE_TAG_RULE;
    else if (tags.has(tag.toLowerCase())) problems[`language${index}-tag`] = 'this language is there already';
    tags.add(tag.toLowerCase());
    if (!language.title.trim()) problems[`language${index}-title`] = 'a title is required';
    if (!language.body.trim()) problems[`language${index}-body`] = 'a message is required';
  });
  if (draft.audience === 'segment' && !draft.segment) problems.segment = 'choose a segment';
  if (draft.audience === 'audience' && !draft.audienceId) problems.audienceId = 'choose an audience';
  if (draft.audience === 'subscriber' && !SUBSCRIBER_ID_PATTERN.test(draft.subscriberId.trim()))
    problems.subscriberId = 'enter a subscriber id';
  if (draft.when === 'at' && Number.isNaN(Date.parse(draft.sendAt))) problems.sendAt = 'choose a date and time';
  if (draft.when === 'local' && !TIME_OF_DAY_PATTERN.test(draft.localTime)) problems.localTime = 'choose a time of day';
  return problems;
}

/** The field of the form an issue of the owner API's input schema is about. */
export function fieldOfIssuePath(path: readonly PropertyKey[], draft?: Pick<Draft, 'languages'>): string {
  const [first, index, field] = path.map(String);
  if (first === 'texts') {
    // texts.<tag>.<title|body>: the language of that tag
    const at = index === undefined ? -1 : (draft?.languages ?? []).findIndex((language) => language.tag.trim() === index);
    return at < 0 ? 'languages' : `language${at}-${field ?? 'tag'}`;
  }
  if (first === 'variants') return index !== undefined && field !== undefined ? `variant${index}-${field}` : 'variants';
  if (first === 'actions') return field === 'url' ? `button${index}url` : `button${index}`;
  if (first === 'testFraction') return 'testPercent';
  if (first === 'winnerAfterMinutes') return 'winnerAfter';
  if (first === 'throttlePerMinute') return 'throttle';
  if (first === 'deliverAt' || first === 'bestHourHoldout') return 'when';
  return first ?? 'form';
}

/** The owner API's input schema on the draft: the same checks as the API and the CLI; the first issue per field. */
export function schemaProblems(draft: Draft): DraftProblems {
  const result = campaignInputSchema.safeParse(campaignRequestOf(draft));
  const problems: DraftProblems = {};
  if (!result.success)
    for (const issue of result.error.issues) problems[fieldOfIssuePath(issue.path, draft)] ??= inFieldUnit(issue.path, issue.message);
  return problems;
}

/** The test share is typed in percent: its limits are said in percent too ("must be 5 % or more", not 0.05). */
function inFieldUnit(path: readonly PropertyKey[], message: string): string {
  if (path[0] !== 'testFraction') return message;
  return message.replace(/\d*\.\d+/, (fraction) => `${Math.round(Number(fraction) * 100)} %`);
}

/** Everything wrong with the draft; where both check a field, the schema's word wins. */
export function draftProblems(draft: Draft): DraftProblems {
  return { ...formProblems(draft), ...schemaProblems(draft) };
}
