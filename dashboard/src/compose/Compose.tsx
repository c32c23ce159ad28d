import { useState, type FormEvent } from 'react';
import type { Campaign, SiteSummary } from '../../../contract/owner-api.ts';
import type { SiteApi } from '../api.ts';
import { NotificationPreview } from '../Preview.tsx';
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

type Stage =
  { name: 'edit' } | { name: 'confirm'; recipients: number } | { name: 'sending'; campaignId: string; campaign: Campaign | null };

/** The compose screen: write a notification, review its audience, send it and follow its progress. */
export function Compose({ api, site, onError }: { api: SiteApi; site: SiteSummary; onError(error: unknown): string }) {
  const [draft, setDraft] = useState<Draft>(() => blankDraft(site));
  const [stage, setStage] = useState<Stage>({ name: 'edit' });
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const segments = useLoad(() => api.segments(), onError, [api]);

  const problems = draftProblems(draft);
  const shown = touched ? problems : {};
  const change = <K extends keyof Draft>(field: K, value: Draft[K]) => {
    setDraft((current) => ({ ...current, [field]: value }));
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
      setStage({ name: 'confirm', recipients: await api.audience({ segment: request.segment, subscriberId: request.subscriberId }) });
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

  // the preview in the language chosen under Languages, else the default texts
  const previewed = draft.previewLanguage === null ? undefined : draft.languages[draft.previewLanguage];
  const preview = (
    <NotificationPreview
      title={previewed ? previewed.title : draft.title}
      body={previewed ? previewed.body : draft.body}
      icon={draft.icon}
      image={draft.image}
      host={new URL(site.origin).host}
      actions={draft.buttons.map((button, index) => ({ action: `button${index + 1}`, title: button.title || `Button ${index + 1}` }))}
    />
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
              setDraft(blankDraft(site));
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
        <form className="card compose" onSubmit={review} noValidate aria-label="Notification">
          <MessageFields {...fieldsProps} />
          <LanguagesFieldset {...fieldsProps} />
          <ButtonsFieldset {...fieldsProps} />
          <DeliveryFields draft={draft} change={change} />
          <WhenFieldset {...fieldsProps} />
          <AbTestFieldset {...fieldsProps} />
          <AudienceFieldset {...fieldsProps} segments={segments.value ?? []} />
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
        {preview}
      </div>
    </div>
  );
}
