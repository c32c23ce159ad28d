import type { Campaign } from '../../../contract/owner-api.ts';
import { formatDate, formatNumber } from '../api.ts';
import { VariantFigures } from '../VariantFigures.tsx';
import { LanguageFigures } from '../LanguageFigures.tsx';
import { DeliveryFailures } from '../DeliveryFailures.tsx';
import { CampaignTiming } from '../CampaignTiming.tsx';
import type { SendingProgress } from './sendingProgress.ts';

const RESULTS = ['sent', 'delivered', 'failed', 'expired', 'clicked'] as const;

/** A campaign on its way: progress, the time it waits for (and a way to cancel), then its results. */
export function SendProgress(props: {
  title: string;
  campaign: Campaign | null;
  progress: SendingProgress;
  error: string | null;
  busy: boolean;
  onCancel(campaignId: string): void;
  onWriteAnother(): void;
}) {
  const { campaign, error } = props;
  const { done, waiting } = props.progress;
  return (
    <section className="card" aria-labelledby="progress-title" aria-live="polite">
      <h2 id="progress-title">{props.title}</h2>
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
            <button type="button" className="secondary" disabled={props.busy} onClick={() => props.onCancel(campaign.campaignId)}>
              Cancel this campaign
            </button>
          </div>
        </>
      )}
      {campaign && <CampaignTiming campaign={campaign} />}
      {campaign && campaign.variants.length > 0 && <VariantFigures campaign={campaign} />}
      {done && campaign && (
        <dl className="results" aria-label="Results">
          {RESULTS.map((name) => (
            <div key={name}>
              <dt>{name[0]!.toUpperCase() + name.slice(1)}</dt>
              <dd data-result={name}>{formatNumber(campaign[name])}</dd>
            </div>
          ))}
        </dl>
      )}
      {done && campaign && <LanguageFigures campaign={campaign} />}
      {done && campaign && <DeliveryFailures failures={campaign.failures} />}
      {done && (
        <p className="muted">
          Delivered: the push service took the message. Expired: the subscription is gone (the subscriber is marked expired). Clicked counts
          grow as subscribers click.
        </p>
      )}
      {done && (
        <div className="buttons">
          <button type="button" onClick={props.onWriteAnother}>
            Write another notification
          </button>
          <a className="button secondary" href="#/campaigns">
            See all campaigns
          </a>
        </div>
      )}
    </section>
  );
}
