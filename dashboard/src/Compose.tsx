import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import type { Campaign, CampaignRequest, SiteSummary } from '../../contract/owner-api.ts';
import { campaignInputSchema } from '../../contract/campaign-input.ts';
import {
  CAMPAIGN_ACTION_TITLE_MAX_LENGTH,
  CAMPAIGN_ACTIONS_MAX,
  CAMPAIGN_BODY_MAX_LENGTH,
  CAMPAIGN_TITLE_MAX_LENGTH,
  DEFAULT_TTL_SECONDS,
  MAX_TTL_SECONDS,
} from '../../contract/campaign-limits.ts';
import { SUBSCRIBER_ID_PATTERN } from '../../contract/ids.ts';
import { DEFAULT_URGENCY, URGENCIES, type Urgency } from '../../contract/urgency.ts';
import { formatDate, formatNumber, type SiteApi } from './api.ts';
import { NotificationPreview } from './Preview.tsx';
import { useLoad } from './useLoad.ts';

const TTL_CHOICES = [
  { seconds: 0, label: 'Now or never (0 s)' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '1 day' },
  { seconds: 604_800, label: '1 week' },
  { seconds: MAX_TTL_SECONDS, label: '4 weeks (the most)' },
];

type Audience = 'all' | 'segment' | 'subscriber';
/** now; at a time (the owner's clock); at a time of day on each subscriber's own clock. */
type When = 'now' | 'at' | 'local';
type Stage =
  { name: 'edit' } | { name: 'confirm'; recipients: number } | { name: 'sending'; campaignId: string; campaign: Campaign | null };

interface Draft {
  title: string;
  body: string;
  url: string;
  icon: string;
  image: string;
  buttons: { title: string; url: string }[];
  ttl: number;
  urgency: Urgency;
  audience: Audience;
  segment: string;
  subscriberId: string;
  when: When;
  /** A datetime-local value, read in the owner's time zone. */
  sendAt: string;
  /** HH:MM */
  localTime: string;
  /** An A/B test: 2 to 4 variants of the notification, each changing what it fills in. */
  abTest: boolean;
  variants: VariantDraft[];
  /** The share of the audience in the test, in percent as typed. */
  testPercent: string;
  /** Minutes until the best click rate goes to the rest, as typed. */
  winnerAfter: string;
}

interface VariantDraft {
  title: string;
  body: string;
  url: string;
  icon: string;
  image: string;
}

const VARIANT_FIELDS = [
  ['title', 'title'],
  ['body', 'message'],
  ['url', 'opens (URL)'],
  ['icon', 'icon (URL)'],
  ['image', 'image (URL)'],
] as const;
const blankVariant = (): VariantDraft => ({ title: '', body: '', url: '', icon: '', image: '' });
/** The first variant (0) is A, as the owner reads it everywhere. */
export const variantLetter = (index: number) => String.fromCharCode(65 + index);

function urlProblem(value: string): string | null {
  if (!value) return null;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol) ? null : 'must start with http:// or https://';
  } catch {
    return 'must be an absolute URL, such as https://example.com/page';
  }
}

function problemsOf(draft: Draft): Record<string, string> {
  const problems: Record<string, string> = {};
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
  if (draft.audience === 'segment' && !draft.segment) problems.segment = 'choose a segment';
  if (draft.audience === 'subscriber' && !SUBSCRIBER_ID_PATTERN.test(draft.subscriberId.trim()))
    problems.subscriberId = 'enter a subscriber id';
  if (draft.when === 'at' && Number.isNaN(Date.parse(draft.sendAt))) problems.sendAt = 'choose a date and time';
  if (draft.when === 'local' && !/^([01]\d|2[0-3]):[0-5]\d$/.test(draft.localTime)) problems.localTime = 'choose a time of day';
  return problems;
}

function inputOf(draft: Draft): CampaignRequest & { segment?: string } {
  const optional = (value: string) => (value.trim() ? value.trim() : undefined);
  return {
    title: draft.title.trim(),
    body: draft.body.trim(),
    url: optional(draft.url),
    icon: optional(draft.icon),
    image: optional(draft.image),
    actions: draft.buttons.length
      ? draft.buttons.map((button, index) => ({ action: `button${index + 1}`, title: button.title.trim(), url: optional(button.url) }))
      : undefined,
    segment: draft.audience === 'segment' ? draft.segment : undefined,
    subscriberId: draft.audience === 'subscriber' ? draft.subscriberId.trim() : undefined,
    ttl: draft.ttl,
    urgency: draft.urgency,
    sendAt: draft.when === 'at' && !Number.isNaN(Date.parse(draft.sendAt)) ? new Date(draft.sendAt).toISOString() : undefined,
    localTime: draft.when === 'local' ? draft.localTime : undefined,
    ...(draft.abTest
      ? {
          variants: draft.variants.map((variant) =>
            Object.fromEntries(
              VARIANT_FIELDS.map(([field]) => [field, optional(variant[field])]).filter(([, value]) => value !== undefined),
            ),
          ),
          testFraction: draft.testPercent.trim() === '' ? Number.NaN : Number(draft.testPercent) / 100,
          winnerAfterMinutes: draft.winnerAfter.trim() === '' ? Number.NaN : Number(draft.winnerAfter),
        }
      : {}),
  };
}

/** The field of the form an issue of the owner API's input schema is about (the same checks as the API and CLI). */
function fieldOf(path: readonly PropertyKey[]): string {
  const [first, index, field] = path.map(String);
  if (first === 'variants') return index !== undefined && field !== undefined ? `variant${index}-${field}` : 'variants';
  if (first === 'actions') return field === 'url' ? `button${index}url` : `button${index}`;
  if (first === 'testFraction') return 'testPercent';
  if (first === 'winnerAfterMinutes') return 'winnerAfter';
  return first ?? 'form';
}

function schemaProblems(draft: Draft): Record<string, string> {
  const result = campaignInputSchema.safeParse(inputOf(draft));
  const problems: Record<string, string> = {};
  if (!result.success) for (const issue of result.error.issues) problems[fieldOf(issue.path)] ??= issue.message;
  return problems;
}

function Field(props: { id: string; label: string; problem?: string; hint?: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      {props.children}
      {props.hint && !props.problem && (
        <small id={`${props.id}-hint`} className="muted">
          {props.hint}
        </small>
      )}
      {props.problem && (
        <small id={`${props.id}-problem`} className="error">
          {props.problem}
        </small>
      )}
    </div>
  );
}

export function Compose({ api, site, onError }: { api: SiteApi; site: SiteSummary; onError(error: unknown): string }) {
  const blank: Draft = {
    title: '',
    body: '',
    url: site.origin,
    icon: site.iconUrl ?? '',
    image: '',
    buttons: [],
    ttl: DEFAULT_TTL_SECONDS,
    urgency: DEFAULT_URGENCY,
    audience: 'all',
    segment: '',
    subscriberId: '',
    when: 'now',
    sendAt: '',
    localTime: '09:00',
    abTest: false,
    variants: [blankVariant(), blankVariant()],
    testPercent: '20',
    winnerAfter: '60',
  };
  const [draft, setDraft] = useState<Draft>(blank);
  const [stage, setStage] = useState<Stage>({ name: 'edit' });
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const segments = useLoad(() => api.segments(), onError, [api]);

  // The form's own checks (a segment chosen, a date picked), then the owner API's input schema.
  const problems = { ...problemsOf(draft), ...schemaProblems(draft) };
  const shown = touched ? problems : {};
  const set = <K extends keyof Draft>(field: K, value: Draft[K]) => {
    setDraft((current) => ({ ...current, [field]: value }));
    // a changed draft needs a new confirmation (the audience size may differ)
    setStage((current) => (current.name === 'confirm' ? { name: 'edit' } : current));
  };
  const describedBy = (id: string) => (shown[id] ? `${id}-problem` : undefined);

  // progress while sending: the campaign's counts every half second until nothing is pending
  const sendingId = stage.name === 'sending' ? stage.campaignId : null;
  const finished = stage.name === 'sending' && stage.campaign !== null && stage.campaign.pending === 0;
  useEffect(() => {
    if (!sendingId || finished) return;
    let live = true;
    const poll = async () => {
      try {
        const campaign = await api.campaign(sendingId);
        if (live) setStage({ name: 'sending', campaignId: sendingId, campaign });
      } catch (failure) {
        if (live) setError(onError(failure));
      }
    };
    void poll();
    const timer = window.setInterval(poll, 500);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [sendingId, finished, api, onError]);

  const review = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    setError(null);
    if (Object.keys(problems).length > 0) return;
    setBusy(true);
    try {
      const input = inputOf(draft);
      setStage({ name: 'confirm', recipients: await api.audience({ segment: input.segment, subscriberId: input.subscriberId }) });
    } catch (failure) {
      setError(onError(failure));
    } finally {
      setBusy(false);
    }
  };

  const send = async () => {
    setBusy(true);
    setError(null);
    try {
      const created = await api.createCampaign(inputOf(draft));
      setStage({ name: 'sending', campaignId: created.campaignId, campaign: null });
    } catch (failure) {
      setError(onError(failure));
      setStage({ name: 'edit' });
    } finally {
      setBusy(false);
    }
  };

  const audienceText =
    draft.audience === 'segment'
      ? `the segment ${draft.segment}`
      : draft.audience === 'subscriber'
        ? `subscriber ${draft.subscriberId.trim()}`
        : 'all subscribers';
  const preview = (
    <NotificationPreview
      title={draft.title}
      body={draft.body}
      icon={draft.icon}
      image={draft.image}
      host={new URL(site.origin).host}
      actions={draft.buttons.map((button, index) => ({ action: `button${index + 1}`, title: button.title || `Button ${index + 1}` }))}
    />
  );

  const cancel = async (campaignId: string) => {
    setBusy(true);
    setError(null);
    try {
      await api.cancelCampaign(campaignId);
      setStage({ name: 'sending', campaignId, campaign: await api.campaign(campaignId) });
    } catch (failure) {
      setError(onError(failure));
    } finally {
      setBusy(false);
    }
  };

  if (stage.name === 'sending') {
    const campaign = stage.campaign;
    const done = campaign !== null && campaign.pending === 0;
    const waiting = campaign !== null && !done && campaign.nextDueAt !== null && Date.parse(campaign.nextDueAt) > Date.now();
    const heading = campaign?.status === 'cancelled' ? 'Cancelled' : done ? 'Sent' : waiting ? 'Scheduled' : 'Sending…';
    return (
      <div className="screen">
        <h1>{heading}</h1>
        <div className="columns">
          <section className="card" aria-labelledby="progress-title" aria-live="polite">
            <h2 id="progress-title">{draft.title}</h2>
            {error && (
              <p className="error" role="alert">
                {error}
              </p>
            )}
            {campaign && (
              <>
                <label htmlFor="send-progress">
                  {done ? 'Finished' : 'Progress'}: {formatNumber(campaign.sent)} of {formatNumber(campaign.recipients)} sent
                </label>
                <progress id="send-progress" max={Math.max(1, campaign.recipients)} value={campaign.recipients === 0 ? 1 : campaign.sent} />
              </>
            )}
            {waiting && campaign && (
              <>
                <p data-next-due={campaign.nextDueAt}>
                  {campaign.localTime
                    ? `Goes out at ${campaign.localTime} on each subscriber's own clock, zone by zone; the next from ${formatDate(campaign.nextDueAt)}.`
                    : `Goes out at ${formatDate(campaign.nextDueAt)}.`}
                </p>
                <div className="buttons">
                  <button type="button" className="secondary" disabled={busy} onClick={() => void cancel(campaign.campaignId)}>
                    Cancel this campaign
                  </button>
                </div>
              </>
            )}
            {campaign && campaign.variants.length > 0 && <VariantFigures campaign={campaign} />}
            {done && campaign && (
              <dl className="results" aria-label="Results">
                {(['sent', 'delivered', 'failed', 'expired', 'clicked'] as const).map((name) => (
                  <div key={name}>
                    <dt>{name[0]!.toUpperCase() + name.slice(1)}</dt>
                    <dd data-result={name}>{formatNumber(campaign[name])}</dd>
                  </div>
                ))}
              </dl>
            )}
            {done && (
              <p className="muted">
                Delivered: the push service took the message. Expired: the subscription is gone (the subscriber is marked expired). Clicked
                counts grow as subscribers click.
              </p>
            )}
            {done && (
              <div className="buttons">
                <button
                  type="button"
                  onClick={() => {
                    setDraft(blank);
                    setTouched(false);
                    setStage({ name: 'edit' });
                  }}
                >
                  Write another notification
                </button>
                <a className="button secondary" href="#/overview">
                  See all campaigns
                </a>
              </div>
            )}
          </section>
          {preview}
        </div>
      </div>
    );
  }

  return (
    <div className="screen">
      <h1>Send a notification</h1>
      <div className="columns">
        <form className="card compose" onSubmit={review} noValidate aria-label="Notification">
          <Field id="title" label="Title" problem={shown.title}>
            <input
              id="title"
              value={draft.title}
              maxLength={CAMPAIGN_TITLE_MAX_LENGTH}
              onChange={(e) => set('title', e.target.value)}
              aria-invalid={!!shown.title}
              aria-describedby={describedBy('title')}
            />
          </Field>
          <Field id="body" label="Message" problem={shown.body}>
            <textarea
              id="body"
              rows={3}
              value={draft.body}
              maxLength={CAMPAIGN_BODY_MAX_LENGTH}
              onChange={(e) => set('body', e.target.value)}
              aria-invalid={!!shown.body}
              aria-describedby={describedBy('body')}
            />
          </Field>
          <Field id="url" label="Opens (URL)" problem={shown.url} hint="The page a click opens; pages of other sites are not opened.">
            <input
              id="url"
              type="url"
              value={draft.url}
              onChange={(e) => set('url', e.target.value)}
              aria-invalid={!!shown.url}
              aria-describedby={describedBy('url') ?? 'url-hint'}
            />
          </Field>
          <div className="field-row">
            <Field id="icon" label="Icon (URL)" problem={shown.icon}>
              <input
                id="icon"
                type="url"
                value={draft.icon}
                onChange={(e) => set('icon', e.target.value)}
                aria-invalid={!!shown.icon}
                aria-describedby={describedBy('icon')}
              />
            </Field>
            <Field id="image" label="Image (URL, optional)" problem={shown.image}>
              <input
                id="image"
                type="url"
                value={draft.image}
                onChange={(e) => set('image', e.target.value)}
                aria-invalid={!!shown.image}
                aria-describedby={describedBy('image')}
              />
            </Field>
          </div>
          <fieldset>
            <legend>Buttons</legend>
            {draft.buttons.map((button, index) => (
              <div key={index} className="field-row">
                <Field id={`button${index}`} label={`Button ${index + 1} label`} problem={shown[`button${index}`]}>
                  <input
                    id={`button${index}`}
                    value={button.title}
                    maxLength={CAMPAIGN_ACTION_TITLE_MAX_LENGTH}
                    onChange={(e) =>
                      set(
                        'buttons',
                        draft.buttons.map((other, at) => (at === index ? { ...other, title: e.target.value } : other)),
                      )
                    }
                  />
                </Field>
                <Field id={`button${index}url`} label={`Button ${index + 1} opens (URL, optional)`} problem={shown[`button${index}url`]}>
                  <input
                    id={`button${index}url`}
                    type="url"
                    value={button.url}
                    onChange={(e) =>
                      set(
                        'buttons',
                        draft.buttons.map((other, at) => (at === index ? { ...other, url: e.target.value } : other)),
                      )
                    }
                  />
                </Field>
                <button
                  type="button"
                  className="secondary small"
                  onClick={() =>
                    set(
                      'buttons',
                      draft.buttons.filter((_, at) => at !== index),
                    )
                  }
                >
                  Remove button {index + 1}
                </button>
              </div>
            ))}
            {draft.buttons.length < CAMPAIGN_ACTIONS_MAX && (
              <button type="button" className="secondary small" onClick={() => set('buttons', [...draft.buttons, { title: '', url: '' }])}>
                Add a button
              </button>
            )}
          </fieldset>
          <div className="field-row">
            <Field id="ttl" label="Keep for an offline browser (TTL)">
              <select id="ttl" value={draft.ttl} onChange={(e) => set('ttl', Number(e.target.value))}>
                {TTL_CHOICES.map((choice) => (
                  <option key={choice.seconds} value={choice.seconds}>
                    {choice.label}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="urgency" label="Urgency">
              <select id="urgency" value={draft.urgency} onChange={(e) => set('urgency', e.target.value as Urgency)}>
                {URGENCIES.map((urgency) => (
                  <option key={urgency} value={urgency}>
                    {urgency}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <fieldset>
            <legend>When</legend>
            <label className="radio">
              <input type="radio" name="when" checked={draft.when === 'now'} onChange={() => set('when', 'now')} /> Now
            </label>
            <label className="radio">
              <input type="radio" name="when" checked={draft.when === 'at'} onChange={() => set('when', 'at')} /> At a date and time
            </label>
            {draft.when === 'at' && (
              <Field id="sendAt" label="Date and time (your clock)" problem={shown.sendAt}>
                <input
                  id="sendAt"
                  type="datetime-local"
                  value={draft.sendAt}
                  onChange={(e) => set('sendAt', e.target.value)}
                  aria-invalid={!!shown.sendAt}
                  aria-describedby={describedBy('sendAt')}
                />
              </Field>
            )}
            <label className="radio">
              <input type="radio" name="when" checked={draft.when === 'local'} onChange={() => set('when', 'local')} /> At a time of day on
              each subscriber's own clock
            </label>
            {draft.when === 'local' && (
              <Field
                id="localTime"
                label="Time of day (subscriber's clock)"
                problem={shown.localTime}
                hint="Reaches each time zone as it gets there."
              >
                <input
                  id="localTime"
                  type="time"
                  value={draft.localTime}
                  onChange={(e) => set('localTime', e.target.value)}
                  aria-invalid={!!shown.localTime}
                  aria-describedby={describedBy('localTime') ?? 'localTime-hint'}
                />
              </Field>
            )}
          </fieldset>
          <fieldset>
            <legend>A/B test</legend>
            <label className="radio">
              <input type="checkbox" checked={draft.abTest} onChange={(e) => set('abTest', e.target.checked)} /> Test variants of this
              notification
            </label>
            {draft.abTest && (
              <>
                <p className="muted" id="variants-hint">
                  Each variant goes to an equal part of the test share; a field left empty keeps the notification's own. The variant with
                  the best click rate then goes to everyone else.
                </p>
                {shown.variants && (
                  <p className="error" id="variants-problem" role="alert">
                    {shown.variants}
                  </p>
                )}
                {draft.variants.map((variant, index) => (
                  <div key={index} className="variant" role="group" aria-label={`Variant ${variantLetter(index)}`}>
                    {VARIANT_FIELDS.map(([field, label]) => {
                      const id = `variant${index}-${field}`;
                      return (
                        <Field key={field} id={id} label={`Variant ${variantLetter(index)} ${label}`} problem={shown[id]}>
                          <input
                            id={id}
                            type={field === 'title' || field === 'body' ? 'text' : 'url'}
                            value={variant[field]}
                            onChange={(e) =>
                              set(
                                'variants',
                                draft.variants.map((other, at) => (at === index ? { ...other, [field]: e.target.value } : other)),
                              )
                            }
                            aria-invalid={!!shown[id]}
                            aria-describedby={describedBy(id)}
                          />
                        </Field>
                      );
                    })}
                    {draft.variants.length > 2 && (
                      <button
                        type="button"
                        className="secondary small"
                        onClick={() =>
                          set(
                            'variants',
                            draft.variants.filter((_, at) => at !== index),
                          )
                        }
                      >
                        Remove variant {variantLetter(index)}
                      </button>
                    )}
                  </div>
                ))}
                {draft.variants.length < 4 && (
                  <button type="button" className="secondary small" onClick={() => set('variants', [...draft.variants, blankVariant()])}>
                    Add a variant
                  </button>
                )}
                <div className="field-row">
                  <Field id="testPercent" label="Share of the audience in the test (%)" problem={shown.testPercent}>
                    <input
                      id="testPercent"
                      type="number"
                      min={5}
                      max={95}
                      value={draft.testPercent}
                      onChange={(e) => set('testPercent', e.target.value)}
                      aria-invalid={!!shown.testPercent}
                      aria-describedby={describedBy('testPercent')}
                    />
                  </Field>
                  <Field id="winnerAfter" label="Pick the winner after (minutes)" problem={shown.winnerAfter}>
                    <input
                      id="winnerAfter"
                      type="number"
                      min={5}
                      value={draft.winnerAfter}
                      onChange={(e) => set('winnerAfter', e.target.value)}
                      aria-invalid={!!shown.winnerAfter}
                      aria-describedby={describedBy('winnerAfter')}
                    />
                  </Field>
                </div>
              </>
            )}
          </fieldset>
          <fieldset>
            <legend>Audience</legend>
            <label className="radio">
              <input type="radio" name="audience" checked={draft.audience === 'all'} onChange={() => set('audience', 'all')} /> All active
              subscribers
            </label>
            <label className="radio">
              <input type="radio" name="audience" checked={draft.audience === 'segment'} onChange={() => set('audience', 'segment')} /> A
              segment
            </label>
            {draft.audience === 'segment' && (
              <Field id="segment" label="Segment" problem={shown.segment}>
                <select id="segment" value={draft.segment} onChange={(e) => set('segment', e.target.value)}>
                  <option value="">Choose a segment</option>
                  {(segments.value ?? [])
                    .filter((segment) => segment.createdAt !== null)
                    .map((segment) => (
                      <option key={segment.sid} value={segment.sid}>
                        {segment.name === segment.sid ? segment.sid : `${segment.name} (${segment.sid})`}: {formatNumber(segment.members)}{' '}
                        members
                      </option>
                    ))}
                </select>
              </Field>
            )}
            <label className="radio">
              <input
                type="radio"
                name="audience"
                checked={draft.audience === 'subscriber'}
                onChange={() => set('audience', 'subscriber')}
              />{' '}
              One subscriber
            </label>
            {draft.audience === 'subscriber' && (
              <Field id="subscriberId" label="Subscriber id" problem={shown.subscriberId}>
                <input
                  id="subscriberId"
                  spellCheck={false}
                  value={draft.subscriberId}
                  onChange={(e) => set('subscriberId', e.target.value)}
                />
              </Field>
            )}
          </fieldset>
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          {stage.name === 'confirm' ? (
            <div className="confirm" role="alertdialog" aria-labelledby="confirm-text">
              <p id="confirm-text">
                {stage.recipients === 0 ? (
                  <>No active subscriber is in {audienceText}: nobody would receive it.</>
                ) : (
                  <>
                    Send “{draft.title.trim()}” to <strong data-recipients={stage.recipients}>{formatNumber(stage.recipients)}</strong>{' '}
                    subscriber
                    {stage.recipients === 1 ? '' : 's'} ({audienceText})?
                  </>
                )}
              </p>
              <div className="buttons">
                <button type="button" onClick={send} disabled={busy || stage.recipients === 0}>
                  {draft.when === 'now' ? 'Send now' : 'Schedule'}
                </button>
                <button type="button" className="secondary" onClick={() => setStage({ name: 'edit' })}>
                  Back to editing
                </button>
              </div>
            </div>
          ) : (
            <div className="buttons">
              <button type="submit" disabled={busy}>
                Review and send
              </button>
            </div>
          )}
        </form>
        {preview}
      </div>
    </div>
  );
}

/** An A/B test's variants with their figures, and the winner or when it is chosen. */
export function VariantFigures({ campaign }: { campaign: Campaign }) {
  return (
    <div className="table-wrap">
      <table aria-label="A/B test variants">
        <thead>
          <tr>
            <th scope="col">Variant</th>
            <th scope="col" className="num">
              Recipients
            </th>
            <th scope="col" className="num">
              Delivered
            </th>
            <th scope="col" className="num">
              Clicked
            </th>
            <th scope="col" className="num">
              Click rate
            </th>
          </tr>
        </thead>
        <tbody>
          {campaign.variants.map((variant) => (
            <tr key={variant.variant} data-variant={variantLetter(variant.variant)}>
              <td>
                {variantLetter(variant.variant)}: {variant.title ?? campaign.title}
                {campaign.winnerVariant === variant.variant && <span className="badge">winner</span>}
              </td>
              <td className="num">{formatNumber(variant.recipients)}</td>
              <td className="num">{formatNumber(variant.delivered)}</td>
              <td className="num">{formatNumber(variant.clicked)}</td>
              <td className="num">{variant.clickRate === null ? '—' : `${(variant.clickRate * 100).toFixed(1)}%`}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted" data-winner={campaign.winnerVariant ?? ''}>
        {campaign.winnerVariant !== null
          ? `Variant ${variantLetter(campaign.winnerVariant)} had the best click rate and went to the rest.`
          : `The variant with the best click rate goes to the rest at ${formatDate(campaign.winnerAt)}.`}
      </p>
    </div>
  );
}
