import { useState, type FormEvent } from 'react';
import type { Campaign, SiteSummary } from '../../../contract/owner-api.ts';
import type { SiteApi } from '../api.ts';
import { NotificationPreview } from '../Preview.tsx';
import { displayZone, previewWhen } from '../clock/index.ts';
import { variantLetter } from '../variantLetter.ts';
import { useLoad } from '../useLoad.ts';
import { AbTestFieldset } from './AbTestFieldset.tsx';
import { AudienceFieldset } from './AudienceFieldset.tsx';
import { ButtonsFieldset } from './ButtonsFieldset.tsx';
import { campaignRequestOf } from './campaignRequest.ts';
import { Confirmation } from './Confirmation.tsx';
import { DeliveryFields } from './DeliveryFields.tsx';
import { blankDraft, describeAudience, type Draft } from './draft.ts';
import { draftProblems } from './draftProblems.ts';
import { MessageFields } from './MessageFields.tsx';
import { LanguagesFieldset } from './LanguagesFieldset.tsx';
import { sendingProgress } from './sendingProgress.ts';
import { SendProgress } from './SendProgress.tsx';
import { useCampaignProgress } from './useCampaignProgress.ts';
import { WhenFieldset } from './WhenFieldset.tsx';
import { DraftsPanel } from './DraftsPanel.tsx';
import { TestSend } from './TestSend.tsx';
import { useDraftKeeping } from './useDraftKeeping.ts';

type Stage =
  { name: 'edit' } | { name: 'confirm'; recipients: number } | { name: 'sending'; campaignId: string; campaign: Campaign | null };

/**
 * The compose screen: write a notification (kept as a draft as it is typed), preview it per platform, variant and
 * language, test it in this browser, review its audience, send it and follow its progress. `route`: what the address
 * says after #/compose (draft/<id>, campaign/<id> to duplicate, template/<id>).
 */
export function Compose({
  api,
  site,
  onError,
  route = [],
}: {
  api: SiteApi;
  site: SiteSummary;
  onError(error: unknown): string;
  route?: string[];
}) {
  const [draft, setDraft] = useState<Draft>(() => blankDraft(site));
  const [previewVariant, setPreviewVariant] = useState(0);
  const keeping = useDraftKeeping({ api, site, route, draft, setDraft, onError });
  const [stage, setStage] = useState<Stage>({ name: 'edit' });
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const segments = useLoad(() => api.segments(), onError, [api]);

  const problems = draftProblems(draft);
  const shown = touched ? problems : {};
  const change = <K extends keyof Draft>(field: K, value: Draft[K]) => {
    setDraft((current) => ({ ...current, [field]: value }));
    keeping.edited();
    // a changed draft needs a new confirmation (the audience size may differ)
    setStage((current) => (current.name === 'confirm' ? { name: 'edit' } : current));
  };

  const sendingId = stage.name === 'sending' ? stage.campaignId : null;
  const sendingCampaign = stage.name === 'sending' ? stage.campaign : null;
  useCampaignProgress({
    api,
    campaignId: sendingId,
    finished: sendingCampaign !== null && sendingCampaign.pending === 0,
    onError,
    onCampaign: (campaign) => setStage({ name: 'sending', campaignId: campaign.campaignId, campaign }),
    onFailure: setError,
  });

  const review = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    setError(null);
    if (Object.keys(problems).length > 0) return;
    setBusy(true);
    try {
      const request = campaignRequestOf(draft);
      const audience = { segment: request.segment, subscriberId: request.subscriberId, audience: request.audience };
      setStage({ name: 'confirm', recipients: await api.audience(audience) });
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
      const created = await api.createCampaign(campaignRequestOf(draft));
      setStage({ name: 'sending', campaignId: created.campaignId, campaign: null });
      await keeping.sent();
    } catch (failure) {
      setError(onError(failure));
      setStage({ name: 'edit' });
    } finally {
      setBusy(false);
    }
  };

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

  // the preview: the variant chosen here (its fields over the notification's own), in the language chosen under
  // Languages (whose texts go over any variant's, as the provider sends them), else the default texts
  const variantIndex = draft.abTest ? Math.min(previewVariant, draft.variants.length - 1) : null;
  const variant = variantIndex === null ? undefined : draft.variants[variantIndex];
  const language = draft.previewLanguage === null ? undefined : draft.languages[draft.previewLanguage];
  const pick = (field: 'title' | 'body' | 'icon' | 'image') => variant?.[field].trim() || draft[field];
  const what = [
    variantIndex === null ? null : `variant ${variantLetter(variantIndex)}`,
    language ? `in ${language.tag.trim() || 'the language chosen'}` : 'in the default texts',
  ]
    .filter(Boolean)
    .join(' ');
  const preview = (
    <div className="preview-column">
      <NotificationPreview
        title={language ? language.title : pick('title')}
        body={language ? language.body : pick('body')}
        icon={pick('icon')}
        image={pick('image')}
        host={new URL(site.origin).host}
        when={previewWhen(campaignRequestOf(draft).sendAt, draft.when === 'local' ? draft.localTime : undefined, displayZone())}
        actions={draft.buttons.map((button, index) => ({ action: `button${index + 1}`, title: button.title || `Button ${index + 1}` }))}
        controls={
          variantIndex !== null && (
            <div className="field">
              <label htmlFor="preview-variant">Preview variant</label>
              <select id="preview-variant" value={String(variantIndex)} onChange={(event) => setPreviewVariant(Number(event.target.value))}>
                {draft.variants.map((_, index) => (
                  <option key={index} value={String(index)}>
                    Variant {variantLetter(index)}
                  </option>
                ))}
              </select>
            </div>
          )
        }
      />
      {stage.name !== 'sending' && (
        <TestSend
          api={api}
          site={site.name}
          what={what}
          onError={onError}
          message={
            Object.keys(problems).length > 0
              ? 'Fix the problems shown in the form first.'
              : {
                  message: {
                    ...campaignRequestOf(draft),
                    segment: undefined,
                    subscriberId: undefined,
                    sendAt: undefined,
                    localTime: undefined,
                  },
                  variant: variantIndex ?? undefined,
                  language: language?.tag.trim() || undefined,
                }
          }
        />
      )}
    </div>
  );

  if (stage.name === 'sending') {
    const progress = sendingProgress(stage.campaign, Date.now());
    return (
      <div className="screen">
        <h1>{progress.heading}</h1>
        <div className="columns">
          <SendProgress
            title={draft.title}
            campaign={stage.campaign}
            progress={progress}
            error={error}
            busy={busy}
            onCancel={(campaignId) => void cancel(campaignId)}
            onWriteAnother={() => {
              keeping.blank();
              setTouched(false);
              setStage({ name: 'edit' });
            }}
          />
          {preview}
        </div>
      </div>
    );
  }

  const fieldsProps = { draft, shown, change };
  return (
    <div className="screen">
      <h1>Send a notification</h1>
      <div className="columns">
        <div className="compose-column">
          <DraftsPanel keeping={keeping} title={draft.title} />
          <form className="card compose" onSubmit={review} noValidate aria-label="Notification">
            <MessageFields {...fieldsProps} />
            <LanguagesFieldset {...fieldsProps} />
            <ButtonsFieldset {...fieldsProps} />
            <DeliveryFields {...fieldsProps} />
            <WhenFieldset {...fieldsProps} />
            <AbTestFieldset {...fieldsProps} />
            <AudienceFieldset {...fieldsProps} segments={segments.value ?? []} api={api} onError={onError} />
            {error && (
              <p className="error" role="alert">
                {error}
              </p>
            )}
            {stage.name === 'confirm' ? (
              <Confirmation
                title={draft.title.trim()}
                recipients={stage.recipients}
                audience={describeAudience(draft)}
                scheduled={draft.when !== 'now'}
                when={campaignRequestOf(draft)}
                busy={busy}
                onSend={send}
                onBack={() => setStage({ name: 'edit' })}
              />
            ) : (
              <div className="buttons">
                <button type="submit" disabled={busy}>
                  Review and send
                </button>
              </div>
            )}
          </form>
        </div>
        {preview}
      </div>
    </div>
  );
}
