import { useState } from 'react';
import type { Campaign } from '../../../contract/owner-api.ts';
import { formatRevenue } from '../revenue.ts';
import { campaignRates, formatRate, RATE_DEFINITIONS, RATE_NAMES, type CampaignRates } from '../../../contract/campaign-report.ts';
import { formatNumber, type SiteApi } from '../api.ts';
import { Time, useDisplayZone } from '../clock/index.ts';
import { duplicateHref } from '../compose/draftContent.ts';
import { DeliveryFailures } from '../DeliveryFailures.tsx';
import { LanguageFigures } from '../LanguageFigures.tsx';
import { CampaignTiming } from '../CampaignTiming.tsx';
import { useLoad } from '../useLoad.ts';
import { variantLetter } from '../variantLetter.ts';
import { Breakdown } from './Breakdown.tsx';
import { RateLegend } from './Rates.tsx';
import { TimelineChart } from './TimelineChart.tsx';
import { LIST_STATUS_LABELS, listStatusOf, scheduleInWords, winnerInWords } from './words.ts';

const CANCELLABLE = new Set<Campaign['status']>(['pending', 'scheduled', 'sending', 'waiting_for_key']);

/** One campaign (`#/campaigns/<id>`): what it says, when it goes, its figures and what the owner can do with it. */
export function CampaignPage(props: { api: SiteApi; onError(error: unknown): string; campaignId: string; canEdit: boolean }) {
  const { api, onError, campaignId } = props;
  const zone = useDisplayZone();
  const campaign = useLoad(() => api.campaign(campaignId), onError, [api, campaignId]);
  const figures = useLoad(() => api.campaignFigures(campaignId), onError, [api, campaignId]);
  const [notice, setNotice] = useState<{ text: string; link?: string } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<'cancel' | 'resend' | null>(null);
  const [busy, setBusy] = useState(false);

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setFailure(null);
    try {
      await work();
    } catch (error) {
      setFailure(onError(error));
    } finally {
      setBusy(false);
      setConfirming(null);
    }
  };
  const cancel = () =>
    act(async () => {
      const reply = await api.cancelCampaign(campaignId);
      setNotice({ text: `Cancelled: ${formatNumber(reply.cancelled)} deliveries that had not gone were withdrawn.` });
      campaign.reload();
    });
  const resend = () =>
    act(async () => {
      const reply = await api.resendCampaign(campaignId);
      setNotice({
        text: `Sending again to the ${formatNumber(reply.recipients)} subscribers who did not click: campaign ${reply.campaignId}.`,
        link: `#/campaigns/${encodeURIComponent(reply.campaignId)}`,
      });
    });
  const exportCsv = () =>
    act(async () => {
      const blob = await api.campaignResultsCsv(campaignId);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = `campaign-${campaignId}.csv`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    });

  if (campaign.error && !campaign.value)
    return (
      <div className="screen">
        <p>
          <a href="#/campaigns">← All campaigns</a>
        </p>
        <p className="error" role="alert">
          {campaign.error}
        </p>
      </div>
    );
  if (!campaign.value) return <p className="muted">Loading…</p>;
  const shown = campaign.value;
  const status = listStatusOf(shown);
  const rates = campaignRates(shown);
  const winner = winnerInWords(shown, zone);

  return (
    <div className="screen campaign-page">
      <p>
        <a href="#/campaigns">← All campaigns</a>
      </p>
      <h1>
        {shown.title}{' '}
        <span className="badge" data-status={status}>
          {LIST_STATUS_LABELS[status]}
        </span>
      </h1>
      <p>{shown.body}</p>
      <p data-schedule="">{scheduleInWords(shown, zone)}</p>
      <p className="muted">
        To {shown.segment ? `segment ${shown.segment}` : shown.subscriberId ? 'one subscriber' : 'all subscribers'}; created{' '}
        <Time value={shown.createdAt} />
        {shown.completedAt && (
          <>
            , finished <Time value={shown.completedAt} />
          </>
        )}
        .
        {shown.resendOf && (
          <>
            {' '}
            Sent again to those who did not click{' '}
            <a href={`#/campaigns/${encodeURIComponent(shown.resendOf)}`}>campaign {shown.resendOf}</a>.
          </>
        )}
        {shown.prunedAfterDays != null && (
          // its figures stay; who it went to (needed to send again to non-clickers) does not
          <> Details pruned after {shown.prunedAfterDays} days: its figures stay, who it went to is not kept.</>
        )}
      </p>

      <div className="buttons campaign-actions">
        {props.canEdit && CANCELLABLE.has(shown.status) && confirming !== 'cancel' && (
          <button type="button" className="secondary" disabled={busy} onClick={() => setConfirming('cancel')}>
            Cancel campaign
          </button>
        )}
        {confirming === 'cancel' && (
          <button type="button" className="danger" disabled={busy} onClick={cancel}>
            Yes, withdraw what has not gone
          </button>
        )}
        {props.canEdit && (
          <a className="button secondary" href={duplicateHref(campaignId)}>
            Duplicate
          </a>
        )}
        {props.canEdit && shown.delivered > 0 && shown.prunedAfterDays == null && confirming !== 'resend' && (
          <button type="button" className="secondary" disabled={busy} onClick={() => setConfirming('resend')}>
            Send again to those who did not click
          </button>
        )}
        {confirming === 'resend' && (
          <button type="button" disabled={busy} onClick={resend}>
            Yes, send it again now to those it was delivered to who did not click
          </button>
        )}
        <button type="button" className="secondary" disabled={busy} onClick={exportCsv}>
          Export results (CSV)
        </button>
      </div>
      {notice && (
        <p className="notice" role="status">
          {notice.text} {notice.link && <a href={notice.link}>Open it</a>}
        </p>
      )}
      {failure && (
        <p className="error" role="alert">
          {failure}
        </p>
      )}

      <section className="counts" aria-label="Campaign figures">
        {(
          [
            ['Recipients', shown.recipients, 'recipients'],
            ['Sent', shown.sent, 'sent'],
            ['Delivered', shown.delivered, 'delivered'],
            ['Shown', shown.shown, 'shown'],
            ['Clicked', shown.clicked, 'clicked'],
            ['Failed or expired', shown.failed + shown.expired, 'failed'],
            ['Waiting', shown.pending, 'pending'],
          ] as const
        ).map(([label, value, key]) => (
          <div className="count" key={key}>
            <span className="count-label">{label}</span>
            <span className="count-value" data-figure={key}>
              {formatNumber(value)}
            </span>
          </div>
        ))}
        {(Object.keys(RATE_NAMES) as (keyof CampaignRates)[]).map((rate) => (
          <div className="count" key={rate}>
            <span className="count-label">
              <abbr title={RATE_DEFINITIONS[rate]}>{RATE_NAMES[rate]}</abbr>
            </span>
            <span className="count-value" data-figure={rate}>
              {formatRate(rates[rate])}
            </span>
          </div>
        ))}
        <div className="count">
          <span className="count-label">Conversions</span>
          <span className="count-value" data-figure="conversions">
            {formatNumber(shown.conversions)}
          </span>
        </div>
        <div className="count">
          <span className="count-label">Revenue</span>
          <span className="count-value" data-figure="revenue">
            {formatRevenue(shown.revenue)}
          </span>
        </div>
      </section>
      <RateLegend />

      <section className="card" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Over time</h2>
        {figures.error && <p className="error">{figures.error}</p>}
        {figures.value && <TimelineChart figures={figures.value} />}
      </section>

      {shown.variants.length > 0 && (
        <section className="card" aria-labelledby="variants-title">
          <h2 id="variants-title">A/B test variants (the test share)</h2>
          {winner && (
            <p data-winner={shown.winnerVariant ?? ''} data-winner-note={shown.winnerNote ?? ''}>
              {winner}
            </p>
          )}
          {figures.value && figures.value.byVariant.length > 0 ? (
            <Breakdown
              label="By variant"
              heading="Variant"
              rows={figures.value.byVariant}
              name={(row) => {
                const variant = shown.variants.find((entry) => String(entry.variant) === row.key);
                const number = Number(row.key);
                return (
                  <>
                    {variantLetter(number)}: {variant?.title ?? shown.title}
                    {shown.winnerVariant === number && !shown.winnerNote && <span className="badge">winner</span>}
                    {(variant?.revenue.length ?? 0) > 0 && <span className="muted"> · {formatRevenue(variant?.revenue)}</span>}
                  </>
                );
              }}
            />
          ) : (
            <p className="muted">No test delivery yet.</p>
          )}
        </section>
      )}

      {(shown.throttlePerMinute !== null || shown.estimatedFinishAt || shown.bestHour) && (
        <section className="card" aria-labelledby="timing-title">
          <h2 id="timing-title">Timing</h2>
          <CampaignTiming campaign={shown} />
        </section>
      )}

      {(shown.byLanguage?.length ?? 0) > 0 && (
        <section className="card" aria-labelledby="languages-title">
          <h2 id="languages-title">By language</h2>
          <LanguageFigures campaign={shown} />
        </section>
      )}

      <section className="card" aria-labelledby="browsers-title">
        <h2 id="browsers-title">By browser</h2>
        {figures.value && figures.value.byBrowser.length > 0 && shown.sent > 0 ? (
          <Breakdown label="By browser" heading="Browser" rows={figures.value.byBrowser} />
        ) : (
          <p className="muted" data-empty="browsers">
            Nothing sent yet: figures by browser come with the first deliveries.
          </p>
        )}
      </section>

      {shown.failures.length > 0 && (
        <section className="card" aria-labelledby="failures-title">
          <h2 id="failures-title">Failures</h2>
          <DeliveryFailures failures={shown.failures} />
        </section>
      )}
    </div>
  );
}
