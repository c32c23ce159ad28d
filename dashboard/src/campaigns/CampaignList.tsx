import { useEffect, useState } from 'react';
import { CAMPAIGN_LIST_STATUSES, CAMPAIGN_SEARCH_MAX_LENGTH, type CampaignListStatus } from '../../../contract/campaign-report.ts';
import { formatNumber, type SiteApi } from '../api.ts';
import { Time } from '../clock/index.ts';
import { FiguresTable, type Column } from '../FiguresTable.tsx';
import { Pager } from '../Pager.tsx';
import { setHashQuery, useHashQuery } from '../route.ts';
import { useLoad } from '../useLoad.ts';
import { LIST_STATUS_LABELS, listStatusOf } from './words.ts';
import { RATE_COLUMNS, RateCells, RateLegend } from './Rates.tsx';

export const PAGE_SIZE = 20;

const COLUMNS: Column[] = [
  { heading: 'Notification' },
  { heading: 'Status' },
  { heading: 'Created' },
  ...['Sent', 'Delivered', 'Shown', 'Clicked'].map((heading) => ({ heading, numeric: true })),
  ...RATE_COLUMNS,
];

/**
 * Every campaign of the site, newest first, a page at a time from the provider; searched by words of the title
 * or body and filtered by status. Search, filter, order and page live in the address (#/campaigns?q=&status=).
 * Drafts are compose's: E's drafts list (compose/DraftsPanel) is where they are; a "draft" status here would
 * list them once the provider lists them with campaigns.
 */
export function CampaignList({ api, onError }: { api: SiteApi; onError(error: unknown): string }) {
  const params = useHashQuery();
  const q = params.get('q') ?? '';
  const rawStatus = params.get('status') ?? '';
  const status = (CAMPAIGN_LIST_STATUSES as readonly string[]).includes(rawStatus) ? (rawStatus as CampaignListStatus) : undefined;
  const order = params.get('order') === 'oldest' ? 'oldest' : 'newest';
  const page = Math.max(1, Math.trunc(Number(params.get('page'))) || 1);
  const offset = (page - 1) * PAGE_SIZE;

  // the search box types freely; the address (and so the request) follows after a pause
  const [searchText, setSearchText] = useState(q);
  useEffect(() => setSearchText(q), [q]);
  const go = (next: { q?: string; status?: string; order?: string; page?: number }) =>
    setHashQuery({ q, status, order: order === 'newest' ? undefined : order, page: undefined, ...next });
  useEffect(() => {
    if (searchText === q) return;
    const timer = setTimeout(() => go({ q: searchText }), 300);
    return () => clearTimeout(timer);
  }, [searchText]);

  const list = useLoad(() => api.campaignPage({ q, status, order, limit: PAGE_SIZE, offset }), onError, [api, q, status, order, offset]);
  const filtered = q !== '' || status !== undefined;

  return (
    <div className="screen">
      <h1>Campaigns</h1>
      <form className="filters campaign-filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <div className="field">
          <label htmlFor="campaign-search">Search</label>
          <input
            id="campaign-search"
            type="search"
            placeholder="words of the title or message"
            value={searchText}
            maxLength={CAMPAIGN_SEARCH_MAX_LENGTH}
            onChange={(event) => setSearchText(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="campaign-status">Status</label>
          <select id="campaign-status" value={status ?? ''} onChange={(event) => go({ status: event.target.value })}>
            <option value="">Any</option>
            {CAMPAIGN_LIST_STATUSES.map((entry) => (
              <option key={entry} value={entry}>
                {LIST_STATUS_LABELS[entry]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="campaign-order">Date</label>
          <select id="campaign-order" value={order} onChange={(event) => go({ order: event.target.value })}>
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
          </select>
        </div>
      </form>
      {list.error && (
        <p className="error" role="alert">
          {list.error}
        </p>
      )}
      {list.value && (
        <section className="card" aria-labelledby="campaign-list-title">
          <h2 id="campaign-list-title">
            {formatNumber(list.value.total)} {list.value.total === 1 ? 'campaign' : 'campaigns'}
            {filtered ? ' found' : ''}
          </h2>
          {list.value.campaigns.length === 0 ? (
            <p className="muted" data-empty="campaigns">
              {filtered ? 'No campaign matches this search and filter.' : 'No notification sent yet.'}
            </p>
          ) : (
            <>
              <FiguresTable label="Campaigns" columns={COLUMNS}>
                {list.value.campaigns.map((campaign) => (
                  <tr key={campaign.campaignId} data-campaign={campaign.campaignId}>
                    <td>
                      <a href={`#/campaigns/${encodeURIComponent(campaign.campaignId)}`}>{campaign.title}</a>
                    </td>
                    <td data-status={listStatusOf(campaign)}>{LIST_STATUS_LABELS[listStatusOf(campaign)]}</td>
                    <td>
                      <Time value={campaign.createdAt} />
                    </td>
                    <td className="num">{formatNumber(campaign.sent)}</td>
                    <td className="num">{formatNumber(campaign.delivered)}</td>
                    <td className="num">{formatNumber(campaign.shown)}</td>
                    <td className="num">{formatNumber(campaign.clicked)}</td>
                    <RateCells figures={campaign} />
                  </tr>
                ))}
              </FiguresTable>
              <RateLegend />
            </>
          )}
          {list.value.total > PAGE_SIZE && (
            <Pager offset={offset} total={list.value.total} pageSize={PAGE_SIZE} onChange={(next) => go({ page: next / PAGE_SIZE + 1 })} />
          )}
        </section>
      )}
      {list.loading && !list.value && <p className="muted">Loading…</p>}
    </div>
  );
}
