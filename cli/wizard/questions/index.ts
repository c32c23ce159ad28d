// The questions in the order they are asked; the summary names each answer with `title`.
import type React from 'react';
import type { QuestionProps } from './types.ts';
import { asksAllowText, type WizardAnswers } from '../answers.ts';
import { CompanyName } from './CompanyName.tsx';
import { ConfigName } from './ConfigName.tsx';
import { SiteOrigin } from './SiteOrigin.tsx';
import { ServerSyncUrl } from './ServerSyncUrl.tsx';
import { PromptStyle, PROMPT_STYLE_LABELS } from './PromptStyle.tsx';
import { OfferText } from './OfferText.tsx';
import { AllowText } from './AllowText.tsx';
import { IncludeUrls } from './IncludeUrls.tsx';
import { ExcludeUrls } from './ExcludeUrls.tsx';
import { DelaySeconds } from './DelaySeconds.tsx';
import { TrackingConsent } from './TrackingConsent.tsx';
import { ShopConnection } from './ShopConnection.tsx';
import { FirstSegment } from './FirstSegment.tsx';

export interface Question {
  title: string;
  Component: (props: QuestionProps) => React.ReactElement;
  show: (answers: WizardAnswers) => string;
  /** Whether the question applies to these answers (default: always); one that does not is skipped and not shown. */
  asked?: (answers: WizardAnswers) => boolean;
}

/** Whether question `index` is asked for these answers. */
export const isAsked = (index: number, answers: WizardAnswers): boolean => QUESTIONS[index]?.asked?.(answers) ?? true;

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

export const QUESTIONS: Question[] = [
  { title: 'Company name', Component: CompanyName, show: (a) => a.companyName },
  { title: 'Config name', Component: ConfigName, show: (a) => a.name },
  { title: 'Site origin', Component: SiteOrigin, show: (a) => a.origin },
  { title: 'Provider URL', Component: ServerSyncUrl, show: (a) => a.serverSyncUrl },
  { title: 'Prompt style', Component: PromptStyle, show: (a) => PROMPT_STYLE_LABELS[a.promptStyle] },
  { title: 'Offer text', Component: OfferText, show: (a) => a.offerText },
  { title: 'Allow text', Component: AllowText, show: (a) => a.allowText, asked: asksAllowText },
  { title: 'Include URLs', Component: IncludeUrls, show: (a) => a.includeUrls.join(', ') },
  { title: 'Exclude URLs', Component: ExcludeUrls, show: (a) => a.excludeUrls.join(', ') || '(none)' },
  { title: 'Delay', Component: DelaySeconds, show: (a) => `${a.delaySeconds} s` },
  { title: 'Tracking consent', Component: TrackingConsent, show: (a) => yesNo(a.trackingConsent) },
  { title: 'Shop connection', Component: ShopConnection, show: (a) => yesNo(a.shopConnected) },
  {
    title: 'First segment',
    Component: FirstSegment,
    show: (a) => (a.segmentSid === '' ? '(none)' : `${a.segmentSid}: ${a.segmentCondition}`),
  },
];
