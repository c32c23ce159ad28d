import { useState } from 'react';
import type { SiteApi } from '../api.ts';
import { Time } from '../clock/index.ts';
import { FiguresTable } from '../FiguresTable.tsx';
import { useLoad } from '../useLoad.ts';

const COLUMNS = [
  { heading: 'When' },
  { heading: 'Event' },
  { heading: 'Outcome' },
  { heading: 'Status', numeric: true },
  { heading: 'Latency', numeric: true },
  { heading: 'Answer' },
  { heading: '' },
];

/** An endpoint's delivery log: each attempt's status, latency and answer, and a replay per event. */
export function WebhookLog({ api, endpointId, onError }: { api: SiteApi; endpointId: string; onError(error: unknown): string }) {
  const log = useLoad(() => api.webhookLog(endpointId), onError, [api, endpointId]);
  const [message, setMessage] = useState<string | null>(null);

  const replay = async (messageId: string) => {
    try {
      await api.replayWebhook(endpointId, messageId);
      setMessage(`Event ${messageId} will be sent again within a second.`);
      log.reload();
    } catch (failure) {
      setMessage(onError(failure));
    }
  };

  return (
    <section className="card" aria-labelledby="webhook-log-title">
      <h2 id="webhook-log-title">Delivery log of endpoint {endpointId}</h2>
      {log.error && (
        <p className="error" role="alert">
          {log.error}
        </p>
      )}
      {message && <p role="status">{message}</p>}
      {log.value && log.value.attempts.length === 0 && <p className="muted">No attempt yet.</p>}
      {log.value && log.value.attempts.length > 0 && (
        <FiguresTable columns={COLUMNS}>
          {log.value.attempts.map((attempt) => (
            <tr key={attempt.attemptId} data-outcome={attempt.outcome}>
              <td>
                <Time value={attempt.attemptedAt} />
              </td>
              <td>
                <code>{attempt.type}</code>
                <div className="muted mono">{attempt.messageId}</div>
              </td>
              <td>{attempt.outcome}</td>
              <td className="num">{attempt.statusCode ?? 'no answer'}</td>
              <td className="num">{attempt.latencyMs} ms</td>
              <td>
                <code>{attempt.response}</code>
              </td>
              <td>
                <button type="button" className="secondary small" onClick={() => replay(attempt.messageId)}>
                  Replay
                </button>
              </td>
            </tr>
          ))}
        </FiguresTable>
      )}
      <div className="buttons">
        <button type="button" className="secondary small" onClick={log.reload}>
          Refresh
        </button>
        <a href="#/webhooks">Back to the endpoints</a>
      </div>
    </section>
  );
}
