// The wizard's answers, their defaults, and their validation through the same validation the build uses:
// each answer is placed into a candidate config and the problems at that answer's paths are kept.
import { randomBytes } from 'node:crypto';
import type { SiteConfigInput } from '../../config/schema.ts';
import { validateConfig } from '../../config/validate-config.ts';
import { DEFAULT_TEXTS } from '../../config/default-texts.ts';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.ts';
import { compilePatternError, compileUrlList } from '../../compiler/url-patterns.ts';
import { needsChildWindow } from '../../compiler/features.ts';
import { SITE_NAME_PATTERN, SITE_NAME_RULE } from '../../contract/ids.ts';

export const PROMPT_STYLES = ['native', 'modal', 'chicklet', 'mobile'] as const;
export type PromptStyle = (typeof PROMPT_STYLES)[number];

export interface WizardAnswers {
  companyName: string;
  name: string;
  origin: string;
  serverSyncUrl: string;
  promptStyle: PromptStyle;
  offerText: string;
  allowText: string;
  includeUrls: string[];
  excludeUrls: string[];
  delaySeconds: number;
  trackingConsent: boolean;
  shopConnected: boolean;
  segmentSid: string;
  segmentCondition: string;
}

export type AnswerName = keyof WizardAnswers;

export const DEFAULT_SERVER_SYNC_URL = 'http://localhost:8787';
const DEFAULT_ALLOW_TEXT = 'Allow';
const DEFAULT_DELAY_SECONDS = 5;

const DEFAULT_COMPANY_NAME = 'My Site';

/**
 * The offer text the wizard proposes for a company. The schema's default is the spec's text of the calligraphy
 * site, which would be wrong on anyone else's site.
 */
export function proposedOfferText(companyName: string): string {
  return `${companyName} wants to notify you when there is something new.`;
}

/** An origin as typed, without the trailing slash that would double the one of every sample URL. */
export function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '');
}

export function defaultAnswers(): WizardAnswers {
  return {
    companyName: DEFAULT_COMPANY_NAME,
    name: 'my-site',
    origin: 'http://localhost:8080',
    serverSyncUrl: DEFAULT_SERVER_SYNC_URL,
    promptStyle: 'native',
    offerText: proposedOfferText(DEFAULT_COMPANY_NAME),
    allowText: DEFAULT_ALLOW_TEXT,
    includeUrls: ['*'],
    excludeUrls: [],
    delaySeconds: DEFAULT_DELAY_SECONDS,
    trackingConsent: false,
    shopConnected: false,
    segmentSid: '',
    segmentCondition: '',
  };
}

/** A file-name-safe config name from a company name: "Café Script & Co" -> "cafe-script-co". */
export function slugify(companyName: string): string {
  return companyName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
}

export function randomHash(): string {
  return randomBytes(12).toString('base64url');
}

/**
 * Whether the site gets the child window (a remote plain-http origin, compiler/features.ts): only then are its
 * texts (`style.offerTextChildWindow`, `style.allowTextChildWindow`) asked and written. An origin not valid yet
 * counts as one that may need it.
 */
export function hasChildWindow(origin: string): boolean {
  try {
    return needsChildWindow(origin);
  } catch {
    return true;
  }
}

/** The Allow button's text labels the child window's button and the branded box's (pcBranding): only those ask it. */
export function asksAllowText(answers: Pick<WizardAnswers, 'origin' | 'promptStyle'>): boolean {
  return answers.promptStyle === 'modal' || hasChildWindow(answers.origin);
}

/** A segment id typed as digits becomes a number, as the spec's sids usually are. */
function segmentIdValue(sid: string): string | number {
  return /^[1-9]\d{0,14}$/.test(sid) ? Number(sid) : sid;
}

/**
 * The config the answers describe: required fields plus those that differ from the schema defaults, so the
 * written file stays short and keeps following the defaults when they change.
 */
export function configFromAnswers(answers: WizardAnswers, hash: string, vapidPublicKey: string, schema?: string): SiteConfigInput {
  const config: SiteConfigInput = {
    ...(schema === undefined ? {} : { $schema: schema }),
    hash,
    companyName: answers.companyName,
    origin: answers.origin,
    serverSyncUrl: answers.serverSyncUrl,
    vapidPublicKey,
  };
  if (answers.promptStyle === 'modal') config.pcBranding = 1;
  if (answers.promptStyle === 'chicklet') config.isNativeOptin = 0;
  const style: NonNullable<SiteConfigInput['style']> = {};
  if (answers.promptStyle === 'mobile') style.isMobileEnabled = true;
  const childWindow = hasChildWindow(answers.origin);
  if (asksAllowText(answers) && answers.allowText !== DEFAULT_ALLOW_TEXT) style.allowTextChildWindow = answers.allowText;
  if (answers.offerText !== DEFAULT_TEXTS.offer) {
    if (childWindow) style.offerTextChildWindow = answers.offerText;
    config.texts = { offer: answers.offerText };
  }
  if (Object.keys(style).length > 0) config.style = style;
  if (!(answers.includeUrls.length === 1 && answers.includeUrls[0] === '*')) config.includeUrls = answers.includeUrls;
  if (answers.excludeUrls.length > 0) config.excludeUrls = answers.excludeUrls;
  if (answers.delaySeconds !== DEFAULT_DELAY_SECONDS) config.triggers = { delaySeconds: answers.delaySeconds };
  if (answers.trackingConsent) config.pageClickTrackingConcent = true;
  if (answers.shopConnected) config.isShopifyConnectedAccount = true;
  if (answers.segmentSid !== '' || answers.segmentCondition !== '') {
    config.segmentations = [{ sid: segmentIdValue(answers.segmentSid), ss: answers.segmentCondition }];
  }
  return config;
}

/** Which config paths (joined with ".") each answer lands on. */
const ANSWER_PATHS: Record<Exclude<AnswerName, 'name'>, string[]> = {
  companyName: ['companyName'],
  origin: ['origin'],
  serverSyncUrl: ['serverSyncUrl'],
  promptStyle: ['pcBranding', 'isNativeOptin', 'style.isMobileEnabled'],
  offerText: ['texts.offer', 'style.offerTextChildWindow'],
  allowText: ['style.allowTextChildWindow'],
  includeUrls: ['includeUrls'],
  excludeUrls: ['excludeUrls'],
  delaySeconds: ['triggers.delaySeconds'],
  trackingConsent: ['pageClickTrackingConcent'],
  shopConnected: ['isShopifyConnectedAccount'],
  segmentSid: ['segmentations.0.sid'],
  segmentCondition: ['segmentations.0.ss'],
};

const VALIDATION_HASH = 'validation-hash';
let validationPublicKey: string | undefined;
function placeholderPublicKey(): string {
  validationPublicKey ??= generateVapidKeyPair().publicKey;
  return validationPublicKey;
}

/** The validation's message for one answer, or undefined when the answer is valid. */
export function validateAnswer(answers: WizardAnswers, field: AnswerName): string | undefined {
  if (field === 'name') return validateConfigName(answers.name);
  if (field === 'segmentSid' || field === 'segmentCondition') {
    const bothOrNeither = (answers.segmentSid === '') === (answers.segmentCondition === '');
    if (!bothOrNeither && answers[field] === '') {
      return field === 'segmentSid' ? 'a segment needs an id when it has a condition' : 'a segment needs a condition when it has an id';
    }
  }
  const candidate = configFromAnswers(answers, VALIDATION_HASH, placeholderPublicKey());
  // Paths are checked even when the answer equals the default, so the default itself is validated too.
  const result = validateConfig(withAnswerPresent(candidate, answers, field));
  if (result.ok) return undefined;
  const paths = ANSWER_PATHS[field];
  const problem = result.problems.find(({ path }) => paths.some((prefix) => path === prefix || path.startsWith(`${prefix}.`)));
  return problem?.message;
}

function withAnswerPresent(config: SiteConfigInput, answers: WizardAnswers, field: AnswerName): SiteConfigInput {
  const copy = structuredClone(config);
  if (field === 'includeUrls') copy.includeUrls = answers.includeUrls;
  if (field === 'excludeUrls') copy.excludeUrls = answers.excludeUrls;
  if (field === 'delaySeconds') copy.triggers = { ...copy.triggers, delaySeconds: answers.delaySeconds };
  if (field === 'allowText') copy.style = { ...copy.style, allowTextChildWindow: answers.allowText };
  if (field === 'offerText') copy.texts = { ...copy.texts, offer: answers.offerText };
  return copy;
}

export function validateConfigName(name: string): string | undefined {
  return SITE_NAME_PATTERN.test(name) ? undefined : SITE_NAME_RULE;
}

/** Every problem of a complete set of answers, as [field, message] pairs. */
export function validateAllAnswers(answers: WizardAnswers): Array<[AnswerName, string]> {
  const problems: Array<[AnswerName, string]> = [];
  for (const field of Object.keys(answers) as AnswerName[]) {
    const message = validateAnswer(answers, field);
    if (message) problems.push([field, message]);
  }
  return problems;
}

/**
 * "qualifies", "excluded" (an exclude pattern matches) or "not included" (no include pattern matches) for a sample
 * URL, or the pattern problem that keeps the check from running.
 */
export function sampleUrlVerdict(sampleUrl: string, includeUrls: string[], excludeUrls: string[]): string {
  for (const pattern of [...includeUrls, ...excludeUrls]) {
    const problem = compilePatternError(pattern);
    if (problem) return problem.message;
  }
  const url = sampleUrl.split('#')[0] ?? '';
  const included = compileUrlList(includeUrls)?.test(url) ?? false;
  const excluded = compileUrlList(excludeUrls)?.test(url) ?? false;
  return !included ? 'not included' : excluded ? 'excluded' : 'qualifies';
}

/** "a, b" -> ["a", "b"]; patterns are typed comma-separated on one line. */
export function parsePatternList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
