import { SUBSCRIBER_STATUSES, type ValueCount } from '../../contract/owner-api.ts';
import { Time, useDisplayZone } from './clock/index.ts';
import { formatNumber, STATUS_LABELS, type SiteApi } from './api.ts';
import { CampaignChart, NotificationChart, SubscriberChart } from './Chart.tsx';
import { FiguresTable, type Column } from './FiguresTable.tsx';
import { useLoad } from './useLoad.ts';
import { VariantFigures } from './VariantFigures.tsx';
import { DeliveryFailures } from './DeliveryFailures.tsx';
import { RATE_COLUMNS, RateCells, RateLegend } from './campaigns/Rates.tsx';

const CAMPAIGN_COLUMNS: Column[] = [
  { heading: 'Notification' },
  { heading: 'Audience' },
  { heading: 'Created' },
  ...['Sent', 'Delivered', 'Failed', 'Expired', 'Shown', 'Clicked'].map((heading) => ({ heading, numeric: true })),
  ...RATE_COLUMNS,
  { heading: 'Conversions', numeric: true },
];

function Breakdown({ title, entries }: { title: string; entries: ValueCount[] }) {
  const total = entries.reduce((sum, entry) => sum + entry.count, 0);
  return (
    <section className="card" aria-labelledby={`${title}-title`}>
      <h2 id={`${title}-title`}>{title}</h2>
      {entries.length === 0 ? (
        <p className="muted">No active subscribers yet.</p>
      ) : (
        <ul className="breakdown">
          {entries.map((entry) => (
            <li key={entry.value}>
              <span className="breakdown-label">{entry.value}</span>
              <span className="breakdown-bar" aria-hidden="true">
                <span style={{ width: `${(entry.count / total) * 100}%` }} />
              </span>
              <span className="breakdown-count">
                {formatNumber(entry.count)} <small>({Math.round((entry.count / total) * 100)}%)</small>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Subscribers who may be lost without a trace: at risk (nothing shown lately) and expired, per day of the owner's zone. */
function Health({ api, onError }: { api: SiteApi; onError(error: unknown): string }) {
  const zone = useDisplayZone();
  const health = useLoad(() => api.subscriberHealth(30, zone), onError, [api, zone]);
  if (health.error) return <p className="error">{health.error}</p>;
  if (!health.value) return null;
  const { atRisk, deliveries, expired, expiredTotal } = health.value;
  const expiredLately = expired.reduce((sum, day) => sum + day.count, 0);
  const most = Math.max(1, ...expired.map((day) => day.count));
  return (
    <section className="card" aria-labelledby="health-title">
      <h2 id="health-title">Subscription health</h2>
      <section className="counts" aria-label="Subscribers at risk and expired">
        <div className="count">
          <span className="count-label">At risk</span>
          <span className="count-value" data-health="at-risk">
            {formatNumber(atRisk)}
          </span>
        </div>
        <div className="count count-expired">
          <span className="count-label">Expired, last 30 days</span>
          <span className="count-value" data-health="expired-recent">
            {formatNumber(expiredLately)}
          </span>
        </div>
        <div className="count count-expired">
          <span className="count-label">Expired, all</span>
          <span className="count-value" data-health="expired-total">
            {formatNumber(expiredTotal)}
          </span>
        </div>
      </section>
      <p className="muted">
        At risk: active subscribers whose last {deliveries} delivered notifications were never reported shown (a browser dropping pushes, or
        a site permission revoked). Expired: subscriptions a push service reported gone.
      </p>
      {expiredLately > 0 && (
        <ul className="breakdown" aria-label="Expired per day">
          {expired
            .filter((day) => day.count > 0)
            .map((day) => (
              <li key={day.date}>
                <span className="breakdown-label">{day.date}</span>
                <span className="breakdown-bar" aria-hidden="true">
                  <span style={{ width: `${(day.count / most) * 100}%` }} />
                </span>
                <span className="breakdown-count">{formatNumber(day.count)}</span>
              </li>
            ))}
        </ul>
      )}
    </section>
  );
}

/** The site's VAPID key ring: how many subscribers are still on a legacy key (an import, a rotation). */
function KeyRing({ api, onError }: { api: SiteApi; onError(error: unknown): string }) {
  const ring = useLoad(() => api.vapidKeys(), onError, [api]);
  if (ring.error) return <p className="error">{ring.error}</p>;
  if (!ring.value) return null;
  const { keys, onLegacyKey, missing } = ring.value;
  const broken = keys.filter((key) => !key.canSign);
  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title">VAPID keys</h2>
      <section className="counts" aria-label="Subscribers by VAPID key">
        <div className="count">
          <span className="count-label">On a legacy key</span>
          <span className="count-value" data-keys="on-legacy-key">
            {formatNumber(onLegacyKey)}
          </span>
        </div>
        <div className="count">
          <span className="count-label">Keys on the ring</span>
          <span className="count-value" data-keys="ring">
            {formatNumber(keys.length)}
          </span>
        </div>
      </section>
      <p className="muted">
        On a legacy key: active subscribers whose subscription was made with an earlier key (imported, or before a rotation). Their
        notifications are signed with that key; their browsers move to the current key on their next visit. push-kit keys vapid lists,
        rotates and retires keys.
      </p>
      {(broken.length > 0 || missing.length > 0) && (
        <ul className="error" aria-label="Keys that cannot sign">
          {broken.map((key) => (
            <li key={key.id}>
              {key.current ? 'Current' : 'Legacy'} key {key.id} cannot sign ({formatNumber(key.subscribers)} subscribers wait):{' '}
              {key.problem}
            </li>
          ))}
          {missing.map((key) => (
            <li key={key.id}>
              Key {key.id} is no longer on the ring ({formatNumber(key.subscribers)} subscribers wait): restore its file
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function Overview({ api, onError }: { api: SiteApi; onError(error: unknown): string }) {
  // days on the charts are the owner's: counted on the display zone's clock, again when the owner picks another
  const zone = useDisplayZone();
  const stats = useLoad(() => api.stats(30, zone), onError, [api, zone]);
  const campaigns = useLoad(() => api.campaigns(8), onError, [api]);

  return (
    <div className="screen">
      <h1>Overview</h1>
      {stats.error && (
        <p className="error" role="alert">
          {stats.error}
        </p>
      )}
      {stats.value && (
        <>
          <section className="counts" aria-label="Subscribers by status">
            {SUBSCRIBER_STATUSES.map((status) => (
              <div key={status} className={`count count-${status}`}>
                <span className="count-label">{STATUS_LABELS[status]}</span>
                <span className="count-value" data-status={status}>
                  {formatNumber(stats.value!.byStatus[status])}
                </span>
              </div>
            ))}
            <div className="count">
              <span className="count-label">All</span>
              <span className="count-value" data-status="all">
                {formatNumber(stats.value.total)}
              </span>
            </div>
            <div className="count">
              <span className="count-label">Refused permission (30 days)</span>
              <span className="count-value" data-status="blocks">
                {formatNumber(stats.value.blocks)}
              </span>
            </div>
          </section>
          <section className="card" aria-labelledby="chart-title">
            <h2 id="chart-title">Subscribers over the last 30 days</h2>
            <SubscriberChart days={stats.value.days} />
          </section>
          <section className="card" aria-labelledby="notifications-chart-title">
            <h2 id="notifications-chart-title">Notifications over the last 30 days</h2>
            <NotificationChart days={stats.value.notifications} />
          </section>
          <div className="columns">
            <Breakdown title="Browsers" entries={stats.value.browsers} />
            <Breakdown title="Languages" entries={stats.value.languages} />
          </div>
          <Health api={api} onError={onError} />
          <KeyRing api={api} onError={onError} />
        </>
      )}
      {stats.loading && !stats.value && <p className="muted">Loading…</p>}
      <section className="card" aria-labelledby="campaigns-title">
        <h2 id="campaigns-title">Last campaigns</h2>
        <p>
          <a href="#/campaigns">See all campaigns</a>
        </p>
        {campaigns.error && <p className="error">{campaigns.error}</p>}
        {campaigns.value && campaigns.value.length === 0 && <p className="muted">No notification sent yet.</p>}
        {campaigns.value && campaigns.value.length > 0 && <CampaignChart campaigns={campaigns.value} />}
        {campaigns.value && campaigns.value.length > 0 && <RateLegend />}
        {campaigns.value && campaigns.value.length > 0 && (
          <FiguresTable columns={CAMPAIGN_COLUMNS}>
            {campaigns.value.map((campaign) => [
              <tr key={campaign.campaignId}>
                <td>
                  <strong>
                    <a href={`#/campaigns/${encodeURIComponent(campaign.campaignId)}`}>{campaign.title}</a>
                  </strong>
                  {campaign.status === 'waiting_for_key' ? (
                    <span
                      className="badge"
                      title="A VAPID key of the site cannot sign: its subscribers' notifications wait until it is fixed"
                    >
                      waiting for key
                    </span>
                  ) : (
                    campaign.status !== 'done' && <span className="badge">{campaign.status}</span>
                  )}
                </td>
                <td>{campaign.segment ? `segment ${campaign.segment}` : campaign.subscriberId ? 'one subscriber' : 'all'}</td>
                <td>
                  <Time value={campaign.createdAt} />
                </td>
                <td className="num">
                  {formatNumber(campaign.sent)} / {formatNumber(campaign.recipients)}
                </td>
                <td className="num">{formatNumber(campaign.delivered)}</td>
                <td className="num">{formatNumber(campaign.failed)}</td>
                <td className="num">{formatNumber(campaign.expired)}</td>
                <td className="num">{formatNumber(campaign.shown)}</td>
                <td className="num">{formatNumber(campaign.clicked)}</td>
                <RateCells figures={campaign} />
                <td className="num">{formatNumber(campaign.conversions)}</td>
              </tr>,
              campaign.variants.length > 0 && (
                <tr key={`${campaign.campaignId}-variants`} className="variants">
                  <td colSpan={CAMPAIGN_COLUMNS.length}>
                    <VariantFigures campaign={campaign} />
                  </td>
                </tr>
              ),
              campaign.failures.length > 0 && (
                <tr key={`${campaign.campaignId}-failures`} className="failures">
                  <td colSpan={CAMPAIGN_COLUMNS.length}>
                    <DeliveryFailures failures={campaign.failures} />
                  </td>
                </tr>
              ),
            ])}
          </FiguresTable>
        )}
      </section>
    </div>
  );
}
