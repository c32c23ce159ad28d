import { useState } from 'react';
import type { SiteApi } from '../api.ts';
import { ConfirmDelete } from '../ConfirmDelete.tsx';
import { downloadJson } from './downloadJson.ts';

/** A subscriber's privacy requests: export everything stored about them, or delete it all (after a confirmation). */
export function PrivacyRequests(props: { api: SiteApi; id: string; onError(error: unknown): string; onDeleted(id: string): void }) {
  const { api, id, onError } = props;
  const [message, setMessage] = useState<string | null>(null);

  const download = async () => {
    setMessage(null);
    try {
      downloadJson(await api.exportSubscriber(id), `subscriber-${id}.json`);
      setMessage('The export was downloaded.');
    } catch (failure) {
      setMessage(onError(failure));
    }
  };

  const remove = async () => {
    try {
      await api.deleteSubscriber(id);
      props.onDeleted(id);
    } catch (failure) {
      setMessage(onError(failure));
    }
  };

  return (
    <>
      <h3>Privacy requests</h3>
      <p className="muted">
        Export gives the subscriber everything stored about them; delete erases it all (tags, segments, events, deliveries).
      </p>
      <div className="buttons">
        <button type="button" onClick={download}>
          Export data (JSON)
        </button>
        <ConfirmDelete name={id} text="Delete subscriber" small={false} onConfirm={remove} />
      </div>
      {message && <p role="status">{message}</p>}
    </>
  );
}
