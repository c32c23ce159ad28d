// The site's webhook endpoints (docs/webhooks.md): each with its events and state (a disabled one says why),
// enable/disable, a new secret with an overlap, removal, its delivery log with replays; and a form to add one.
import { useState } from 'react';
import { formatNumber, type SiteApi } from '../api.ts';
import { Time } from '../clock/index.ts';
import { ConfirmDelete } from '../ConfirmDelete.tsx';
import { FiguresTable } from '../FiguresTable.tsx';
import { useLoad } from '../useLoad.ts';
import type { WebhookEndpoint } from '../../../contract/webhook-events.ts';
import { AddWebhookForm } from './AddWebhookForm.tsx';
import { WebhookLog } from './WebhookLog.tsx';

const COLUMNS = [
  { heading: 'Endpoint' },
  { heading: 'Events' },
  { heading: 'State' },
  { heading: 'Waiting', numeric: true },
  { heading: '' },
];

export function Webhooks({ api, onError, selected }: { api: SiteApi; onError(error: unknown): string; selected?: string }) {
  const endpoints = useLoad(() => api.webhooks(), onError, [api]);
  const [message, setMessage] = useState<{ text: string; secret?: string } | null>(null);

  const act = async (work: () => Promise<{ text: string; secret?: string }>) => {
    setMessage(null);
    try {
      setMessage(await work());
      endpoints.reload();
    } catch (failure) {
      setMessage({ text: onError(failure) });
    }
  };
  const setEnabled = (endpoint: WebhookEndpoint, enabled: boolean) =>
    act(async () => {
      await api.changeWebhook(endpoint.endpointId, { enabled });
      return { text: `Endpoint ${endpoint.endpointId} ${enabled ? 'enabled: its waiting events go now' : 'disabled'}.` };
    });
  const rotate = (endpoint: WebhookEndpoint) =>
    act(async () => {
      const reply = await api.rotateWebhookSecret(endpoint.endpointId, 24);
      return {
        text: `New secret of endpoint ${endpoint.endpointId}, shown this once; the old one also signs for 24 hours.`,
        secret: reply.secret,
      };
    });
  const remove = (endpoint: WebhookEndpoint) =>
    act(async () => {
      await api.removeWebhook(endpoint.endpointId);
      return { text: `Endpoint ${endpoint.endpointId} removed.` };
    });

  if (selected) {
    return (
      <div className="screen">
        <h1>Webhooks</h1>
        <WebhookLog api={api} endpointId={selected} onError={onError} />
      </div>
    );
  }
  return (
    <div className="screen">
      <h1>Webhooks</h1>
      <div className="columns">
        <section className="card" aria-labelledby="webhooks-title">
          <h2 id="webhooks-title">Webhook endpoints</h2>
          {endpoints.error && (
            <p className="error" role="alert">
              {endpoints.error}
            </p>
          )}
          {message && (
            <div role="status">
              <p>{message.text}</p>
              {message.secret && <code className="snippet">{message.secret}</code>}
            </div>
          )}
          {endpoints.value && endpoints.value.length === 0 && <p className="muted">No endpoint yet.</p>}
          {endpoints.value && endpoints.value.length > 0 && (
            <FiguresTable columns={COLUMNS}>
              {endpoints.value.map((endpoint) => (
                <tr key={endpoint.endpointId} data-endpoint={endpoint.endpointId} data-status={endpoint.status}>
                  <td>
                    <strong className="mono">{endpoint.url}</strong>
                    {endpoint.description && <div className="muted">{endpoint.description}</div>}
                  </td>
                  <td>{endpoint.events.join(', ')}</td>
                  <td>
                    {endpoint.status === 'enabled' ? (
                      'Enabled'
                    ) : (
                      <span className="error">
                        Disabled <Time value={endpoint.disabledAt} />
                      </span>
                    )}
                    {endpoint.disabledReason && <div className="muted">{endpoint.disabledReason}</div>}
                    {endpoint.previousSecretExpiresAt && (
                      <div className="muted">
                        The previous secret signs too until <Time value={endpoint.previousSecretExpiresAt} />
                      </div>
                    )}
                  </td>
                  <td className="num">{formatNumber(endpoint.pending)}</td>
                  <td>
                    <span className="buttons">
                      <a href={`#/webhooks/${encodeURIComponent(endpoint.endpointId)}`}>Log</a>
                      <button type="button" className="secondary small" onClick={() => setEnabled(endpoint, endpoint.status !== 'enabled')}>
                        {endpoint.status === 'enabled' ? 'Disable' : 'Enable'}
                      </button>
                      <button type="button" className="secondary small" onClick={() => rotate(endpoint)}>
                        New secret
                      </button>
                      <ConfirmDelete verb="Remove" name={`endpoint ${endpoint.endpointId}`} onConfirm={() => remove(endpoint)} />
                    </span>
                  </td>
                </tr>
              ))}
            </FiguresTable>
          )}
        </section>
        <AddWebhookForm api={api} onError={onError} onAdded={endpoints.reload} />
      </div>
    </div>
  );
}
