import type { SiteApi } from '../api.ts';
import { useLoad } from '../useLoad.ts';
import { Memberships } from './Memberships.tsx';
import { PrivacyRequests } from './PrivacyRequests.tsx';
import { SubscriberFacts } from './SubscriberFacts.tsx';

/** One subscriber: what is stored about them, their segments, and their privacy requests. */
export function SubscriberDetail({
  api,
  id,
  onError,
  onDeleted,
}: {
  api: SiteApi;
  id: string;
  onError(error: unknown): string;
  onDeleted(id: string): void;
}) {
  const detail = useLoad(() => api.subscriber(id), onError, [api, id]);
  const segments = useLoad(() => api.segments(), onError, [api]);

  const value = detail.value;
  return (
    <section className="card" aria-labelledby="detail-title">
      <p>
        <a href="#/subscribers">← All subscribers</a>
      </p>
      <h2 id="detail-title">Subscriber {id}</h2>
      {detail.error && (
        <p className="error" role="alert">
          {detail.error}
        </p>
      )}
      {value && (
        <>
          <SubscriberFacts detail={value} />
          <Memberships
            api={api}
            id={id}
            current={value.segments}
            segments={segments.value ?? []}
            onError={onError}
            onChanged={() => {
              detail.reload();
              segments.reload();
            }}
          />
          <PrivacyRequests api={api} id={id} onError={onError} onDeleted={onDeleted} />
        </>
      )}
    </section>
  );
}
