// `push-kit init`: the Ink wizard on a terminal, or `--yes` / `--answers FILE` for CI.
import { readFile } from 'node:fs/promises';
import {
  defaultAnswers,
  normalizeOrigin,
  PROMPT_STYLES,
  proposedOfferText,
  slugify,
  validateAllAnswers,
  type AnswerName,
  type WizardAnswers,
} from '../wizard/answers.ts';
import { cliError } from '../errors.ts';
import { fileExists, nextStepsText, siteConfigPath, writeSite } from '../wizard/write-site.ts';

export interface InitOptions {
  yes?: boolean;
  answers?: string;
  dir: string;
  force?: boolean;
}

export async function runInit(options: InitOptions): Promise<number> {
  if (options.yes || options.answers !== undefined) return runNonInteractive(options);
  if (!process.stdin.isTTY) {
    process.stderr.write('push-kit init needs a terminal; use --yes or --answers FILE\n');
    return 1;
  }
  const { runWizard } = await import('../wizard/run-wizard.tsx');
  return runWizard(options.dir, options.force ?? false);
}

async function runNonInteractive(options: InitOptions): Promise<number> {
  let answers = defaultAnswers();
  if (options.answers !== undefined) {
    const read = await readAnswersFile(options.answers);
    if (typeof read === 'string') {
      process.stderr.write(`${read}\n`);
      return 1;
    }
    answers = read;
  }
  const problems = validateAllAnswers(answers);
  if (problems.length > 0) {
    for (const [field, message] of problems) process.stderr.write(`answers.${field}: ${message}\n`);
    return 1;
  }
  const configFile = siteConfigPath(options.dir, answers.name);
  if (!options.force && (await fileExists(configFile))) throw cliError('E_SITE_EXISTS', { file: configFile });
  const written = await writeSite(options.dir, answers);
  process.stdout.write(`${nextStepsText(written, answers.name, options.dir)}\n`);
  return 0;
}

const STRING_ANSWERS: AnswerName[] = ['companyName', 'name', 'origin', 'serverSyncUrl', 'offerText', 'allowText', 'segmentCondition'];
const BOOLEAN_ANSWERS: AnswerName[] = ['trackingConsent', 'shopConnected'];
const LIST_ANSWERS: AnswerName[] = ['includeUrls', 'excludeUrls'];

/** The answers of a JSON file over the defaults, or the message(s) saying what is wrong with it. */
export async function readAnswersFile(file: string): Promise<WizardAnswers | string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    return `${file}: ${(error as Error).message}`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return `${file}: must be a JSON object of answers`;
  const given = parsed as Record<string, unknown>;
  const answers: Record<string, unknown> = { ...defaultAnswers() };
  if (typeof given.companyName === 'string') {
    if (given.name === undefined) answers.name = slugify(given.companyName);
    if (given.offerText === undefined) answers.offerText = proposedOfferText(given.companyName);
  }
  const problems: string[] = [];
  const known = new Set(Object.keys(answers));
  for (const [field, value] of Object.entries(given)) {
    if (!known.has(field)) {
      problems.push(`answers.${field}: is not a question of push-kit init (known: ${[...known].join(', ')})`);
      continue;
    }
    const problem = answerTypeProblem(field as AnswerName, value);
    if (problem) problems.push(`answers.${field}: ${problem}`);
    else if (field === 'segmentSid') answers[field] = String(value);
    else if (field === 'origin') answers[field] = normalizeOrigin(value as string);
    else answers[field] = value;
  }
  return problems.length > 0 ? problems.join('\n') : (answers as unknown as WizardAnswers);
}

function answerTypeProblem(field: AnswerName, value: unknown): string | undefined {
  if (STRING_ANSWERS.includes(field)) return typeof value === 'string' ? undefined : 'must be a string';
  if (BOOLEAN_ANSWERS.includes(field)) return typeof value === 'boolean' ? undefined : 'must be true or false';
  if (LIST_ANSWERS.includes(field)) {
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? undefined : 'must be an array of strings';
  }
  if (field === 'delaySeconds') return typeof value === 'number' ? undefined : 'must be a number';
  if (field === 'segmentSid') return typeof value === 'string' || typeof value === 'number' ? undefined : 'must be a string or a number';
  if (field === 'promptStyle') {
    return (PROMPT_STYLES as readonly unknown[]).includes(value) ? undefined : `must be one of ${PROMPT_STYLES.join(', ')}`;
  }
  return undefined;
}
