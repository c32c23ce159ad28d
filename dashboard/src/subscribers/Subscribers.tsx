import { useEffect, useState } from 'react';
import type { SubscriberOrder, SubscriberStatus } from '../../../contract/owner-api.ts';
import { formatNumber, type SiteApi } from '../api.ts';
import { Pager } from '../Pager.tsx';
import { useLoad } from '../useLoad.ts';
import { SubscriberDetail } from './SubscriberDetail.tsx';
import { SubscriberFilters } from './SubscriberFilters.tsx';
import { SubscriberTable } from './SubscriberTable.tsx';

const PAGE_SIZE = 50;
/** How long typing pauses before the search runs. */
const SEARCH_DELAY_MS = 300;

/** The subscribers screen: the filtered, paged list, or one subscriber's detail when `selected` names them. */
export function Subscribers({ api, onError, selected }: { api: SiteApi; onError(error: unknown): string; selected?: string }) {
  const [searchText, setSearchText] = useState('');
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<SubscriberStatus | ''>('');
  const [segment, setSegment] = useState('');
  const [order, setOrder] = useState<SubscriberOrder>('newest');
  const [offset, setOffset] = useState(0);
  const segments = useLoad(() => api.segments(), onError, [api]);
  const [notice, setNotice] = useState<string | null>(null);

  // a search runs when typing pauses, from the first page; a page chosen meanwhile without typing stays
  useEffect(() => {
    if (searchText.trim() === search) return;
    const timer = window.setTimeout(() => {
      setSearch(searchText.trim());
      setOffset(0);
    }, SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [searchText, search]);

  const page = useLoad(() => api.subscribers({ limit: PAGE_SIZE, offset, search, status: status || undefined, segment, order }), onError, [
    api,
    offset,
    search,
    status,
    segment,
    order,
  ]);
  const [exportFailure, setExportFailure] = useState<string | null>(null);
  /** The list as filtered and ordered on screen, every page of it, as a CSV file. */
  const exportCsv = async () => {
    setExportFailure(null);
    try {
      const blob = await api.subscribersCsv({ search, status: status || undefined, segment, order });
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = 'subscribers.csv';
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (error) {
      setExportFailure(onError(error));
    }
  };

  if (selected) {
    return (
      <div className="screen">
        <h1>Subscribers</h1>
        <SubscriberDetail
          api={api}
          id={selected}
          onError={onError}
          onDeleted={(id) => {
            setNotice(`Subscriber ${id} and everything stored about them were deleted.`);
            page.reload();
            window.location.hash = '#/subscribers';
          }}
        />
      </div>
    );
  }

  const value = page.value;
  return (
    <div className="screen">
      <h1>Subscribers</h1>
      {notice && (
        <p className="ok" role="status">
          {notice}
        </p>
      )}
      <section className="card">
        <SubscriberFilters
          searchText={searchText}
          status={status}
          segment={segment}
          segments={segments.value ?? []}
          onSearchText={setSearchText}
          onStatus={(next) => {
            setStatus(next);
            setOffset(0);
          }}
          onSegment={(next) => {
            setSegment(next);
            setOffset(0);
          }}
          order={order}
          onOrder={(next) => {
            setOrder(next);
            setOffset(0);
          }}
        />
        <div className="buttons">
          <button type="button" className="secondary" onClick={() => void exportCsv()}>
            Export this list (CSV)
          </button>
        </div>
        {exportFailure && (
          <p className="error" role="alert">
            {exportFailure}
          </p>
        )}
        {page.error && (
          <p className="error" role="alert">
            {page.error}
          </p>
        )}
        {value && (
          <>
            <p className="muted" aria-live="polite" data-total={value.total}>
              {value.total === 0
                ? 'No subscriber matches.'
                : `${formatNumber(value.offset + 1)}–${formatNumber(value.offset + value.subscribers.length)} of ${formatNumber(value.total)}`}
            </p>
            {value.subscribers.length > 0 && <SubscriberTable subscribers={value.subscribers} loading={page.loading} />}
            <Pager offset={offset} total={value.total} pageSize={PAGE_SIZE} onChange={setOffset} />
          </>
        )}
      </section>
    </div>
  );
}
