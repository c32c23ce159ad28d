import { useState, type FormEvent } from 'react';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_URL_MAX_LENGTH, type WebhookEventType } from '../../../contract/webhook-events.ts';
import type { SiteApi } from '../api.ts';

/** A new endpoint: its https URL and the events it takes; its signing secret is shown once, here. */
export function AddWebhookForm({ api, onError, onAdded }: { api: SiteApi; onError(error: unknown): string; onAdded(): void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Set<WebhookEventType>>(new Set(['subscriber.created']));
  const [error, setError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ endpointId: string; secret: string } | null>(null);

  const toggle = (event: WebhookEventType) =>
    setEvents((current) => {
      const next = new Set(current);
      if (next.has(event)) next.delete(event);
      else next.add(event);
      return next;
    });

  const add = async (submitted: FormEvent) => {
    submitted.preventDefault();
    setError(null);
    setSecret(null);
    if (!/^https?:\/\//.test(url.trim())) {
      setError('The URL is an https:// address of your receiver.');
      return;
    }
    if (events.size === 0) {
      setError('Choose at least one event.');
      return;
    }
    try {
      const reply = await api.addWebhook({ url: url.trim(), events: WEBHOOK_EVENT_TYPES.filter((event) => events.has(event)) });
      setSecret({ endpointId: reply.endpoint.endpointId, secret: reply.secret });
      setUrl('');
      onAdded();
    } catch (failure) {
      setError(onError(failure));
    }
  };

  return (
    <form className="card" onSubmit={add} noValidate aria-labelledby="add-webhook-title">
      <h2 id="add-webhook-title">Add an endpoint</h2>
      <div className="field">
        <label htmlFor="webhook-url">URL</label>
        <input
          id="webhook-url"
          type="url"
          value={url}
          maxLength={WEBHOOK_URL_MAX_LENGTH}
          spellCheck={false}
          placeholder="https://crm.example.com/push-kit"
          onChange={(event) => setUrl(event.target.value)}
        />
      </div>
      <fieldset className="field">
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((event) => (
          <label key={event} className="radio">
            <input type="checkbox" checked={events.has(event)} onChange={() => toggle(event)} /> <code>{event}</code>
          </label>
        ))}
      </fieldset>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {secret && (
        <div className="ok" role="status">
          <p>Endpoint {secret.endpointId} added. Its signing secret is shown this once: copy it to your receiver.</p>
          <code className="snippet" data-secret>
            {secret.secret}
          </code>
        </div>
      )}
      <div className="buttons">
        <button type="submit" className="button">
          Add endpoint
        </button>
      </div>
    </form>
  );
}
