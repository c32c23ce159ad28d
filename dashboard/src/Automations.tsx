import { useState, type FormEvent } from 'react';
import {
  AUTOMATION_DAYS_MAX,
  AUTOMATION_DELAY_MAX_MINUTES,
  CONVERSION_WINDOW_MAX_HOURS,
  type Automation,
  type AutomationChange,
  type AutomationKind,
} from '../../contract/automations.ts';
import { CAMPAIGN_BODY_MAX_LENGTH, CAMPAIGN_TITLE_MAX_LENGTH } from '../../contract/campaign-limits.ts';
import { formatNumber, type SiteApi } from './api.ts';
import { useLoad } from './useLoad.ts';
import { formatRevenue } from './revenue.ts';
import { DeliveryFailures } from './DeliveryFailures.tsx';
import { NotificationPreview } from './Preview.tsx';
import type { SiteSummary } from '../../contract/owner-api.ts';
import type { Audience } from '../../contract/audiences.ts';

const NAMES: Record<AutomationKind, { title: string; what: string; delay: string; days?: string }> = {
  welcome: {
    title: 'Welcome message',
    what: 'Sent once to each new subscriber.',
    delay: 'Minutes after the subscribe',
  },
  abandonedCart: {
    title: 'Abandoned cart',
    what: 'One reminder when a subscriber adds to the cart and no order follows; an order cancels it. A newer add-to-cart replaces a reminder still waiting. {product} and {price} name the product added last.',
    delay: 'Minutes after the add-to-cart with no order',
  },
  browseAbandonment: {
    title: 'Browse abandonment',
    what: 'One reminder when a subscriber views a product and neither adds to the cart nor orders; once per product. {product}, {price} and {url} name the product viewed last (from your product updates).',
    delay: 'Minutes after the product view',
  },
  priceDrop: {
    title: 'Price drop',
    what: 'When your product update lowers a price, to the subscribers who viewed or added it to the cart; once per change. {product}, {price}, {oldPrice}, {url}.',
    delay: 'Minutes after the update',
    days: 'Viewed or carted within (days)',
  },
  backInStock: {
    title: 'Back in stock',
    what: 'When your product update puts a product back in stock, to the subscribers who viewed or added it to the cart; once per change. {product}, {price}, {url}.',
    delay: 'Minutes after the update',
    days: 'Viewed or carted within (days)',
  },
  winBack: {
    title: 'Win-back',
    what: 'Once to each subscriber with no visit and no click for the days below.',
    delay: 'Minutes after found inactive',
    days: 'Days without a visit or click',
  },
};

function describeDelay(minutes: number): string {
  if (minutes === 0) return 'at once';
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}

/** One automation: its figures, pause/resume, and its settings to edit. */
function AutomationCard({
  automation,
  api,
  onError,
  onSaved,
  site,
  audiences,
}: {
  automation: Automation;
  /** The site's audiences (docs/audiences.md), one of which an automation may be limited to. */
  audiences: Audience[];
  api: SiteApi;
  /** The site whose icon and host the preview shows (the compose screen's preview: Preview.tsx). */
  site?: Pick<SiteSummary, 'origin' | 'iconUrl'>;
  onError(error: unknown): string;
  onSaved(): void;
}) {
  // a kind this screen has no words for yet (a newer provider) is named by its key rather than breaking the screen
  const names = (NAMES as Partial<typeof NAMES>)[automation.kind] ?? { title: automation.kind, what: '', delay: 'Minutes after the event' };
  const [form, setForm] = useState({
    delayMinutes: String(automation.delayMinutes),
    title: automation.title,
    body: automation.body,
    url: automation.url ?? '',
    conversionWindowHours: String(automation.conversionWindowHours),
    days: String(automation.days),
    audience: automation.audience ?? '',
  });
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const id = (field: string) => `${automation.kind}-${field}`;

  const save = async (change: AutomationChange, done: string) => {
    setMessage(null);
    try {
      await api.changeAutomation(automation.kind, change);
      setMessage({ text: done, error: false });
      onSaved();
    } catch (failure) {
      setMessage({ text: onError(failure), error: true });
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const delayMinutes = Number(form.delayMinutes);
    const conversionWindowHours = Number(form.conversionWindowHours);
    if (!Number.isInteger(delayMinutes) || delayMinutes < 0 || delayMinutes > AUTOMATION_DELAY_MAX_MINUTES) {
      setMessage({ text: `The delay is a whole number of minutes, 0 to ${AUTOMATION_DELAY_MAX_MINUTES}.`, error: true });
      return;
    }
    if (!Number.isInteger(conversionWindowHours) || conversionWindowHours < 1 || conversionWindowHours > CONVERSION_WINDOW_MAX_HOURS) {
      setMessage({ text: `The conversion window is a whole number of hours, 1 to ${CONVERSION_WINDOW_MAX_HOURS}.`, error: true });
      return;
    }
    const days = Number(form.days);
    if (names.days && (!Number.isInteger(days) || days < 1 || days > AUTOMATION_DAYS_MAX)) {
      setMessage({ text: `The days are a whole number, 1 to ${AUTOMATION_DAYS_MAX}.`, error: true });
      return;
    }
    void save(
      {
        delayMinutes,
        title: form.title,
        body: form.body,
        url: form.url.trim() || null,
        conversionWindowHours,
        ...(names.days ? { days } : {}),
        audience: form.audience || null,
      },
      'Saved. Messages already scheduled keep their text and time.',
    );
  };

  const { stats } = automation;
  return (
    <section className="card automation" aria-labelledby={id('title')} data-kind={automation.kind}>
      <div className="automation-head">
        <h2 id={id('title')}>{names.title}</h2>
        <span className={`badge ${automation.enabled ? 'badge-on' : 'badge-off'}`} data-testid={id('state')}>
          {automation.enabled ? `On, ${describeDelay(automation.delayMinutes)} after` : 'Paused'}
        </span>
        <button
          type="button"
          className={automation.enabled ? 'secondary small' : 'small'}
          onClick={() =>
            save(
              { enabled: !automation.enabled },
              automation.enabled ? 'Paused: nothing is sent, and what was scheduled is withdrawn.' : 'Running again.',
            )
          }
        >
          {automation.enabled ? 'Pause' : 'Resume'}
        </button>
      </div>
      <p className="muted">{names.what}</p>
      <dl className="automation-stats">
        {(
          [
            ['Scheduled', stats.scheduled],
            ['Sent', stats.sent],
            ['Delivered', stats.delivered],
            ['Failed', stats.failed],
            ['Clicked', stats.clicked],
            ['Conversions', stats.conversions],
          ] as const
        ).map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd data-stat={label.toLowerCase()}>{formatNumber(value)}</dd>
          </div>
        ))}
        <div>
          <dt>Revenue</dt>
          <dd data-stat="revenue">{formatRevenue(stats.revenue)}</dd>
        </div>
      </dl>
      <DeliveryFailures failures={stats.failures} />
      <form onSubmit={submit} noValidate>
        <div className="field-row">
          <div className="field">
            <label htmlFor={id('delay')}>{names.delay}</label>
            <input
              id={id('delay')}
              inputMode="numeric"
              value={form.delayMinutes}
              onChange={(event) => setForm({ ...form, delayMinutes: event.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor={id('window')}>Conversion window (hours after a click)</label>
            <input
              id={id('window')}
              inputMode="numeric"
              value={form.conversionWindowHours}
              onChange={(event) => setForm({ ...form, conversionWindowHours: event.target.value })}
            />
          </div>
          {names.days && (
            <div className="field">
              <label htmlFor={id('days')}>{names.days}</label>
              <input
                id={id('days')}
                inputMode="numeric"
                value={form.days}
                onChange={(event) => setForm({ ...form, days: event.target.value })}
              />
            </div>
          )}
        </div>
        <div className="field">
          <label htmlFor={id('audience')}>Only to the audience</label>
          <select id={id('audience')} value={form.audience} onChange={(event) => setForm({ ...form, audience: event.target.value })}>
            <option value="">Everyone it concerns</option>
            {audiences.map((audience) => (
              <option key={audience.id} value={audience.id}>
                {audience.name === audience.id ? audience.id : `${audience.name} (${audience.id})`}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={id('message-title')}>Title</label>
          <input
            id={id('message-title')}
            maxLength={CAMPAIGN_TITLE_MAX_LENGTH}
            value={form.title}
            onChange={(event) => setForm({ ...form, title: event.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor={id('body')}>Message</label>
          <textarea
            id={id('body')}
            rows={2}
            maxLength={CAMPAIGN_BODY_MAX_LENGTH}
            value={form.body}
            onChange={(event) => setForm({ ...form, body: event.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor={id('url')}>Page opened on click (optional)</label>
          <input
            id={id('url')}
            type="url"
            value={form.url}
            placeholder="https://"
            onChange={(event) => setForm({ ...form, url: event.target.value })}
          />
        </div>
        <NotificationPreview
          title={form.title}
          body={form.body}
          icon={site?.iconUrl ?? ''}
          image=""
          host={site ? new URL(site.origin).host : ''}
          actions={[]}
        />
        {message && (
          <p className={message.error ? 'error' : 'ok'} role={message.error ? 'alert' : 'status'}>
            {message.text}
          </p>
        )}
        <div className="buttons">
          <button type="submit">Save {names.title.toLowerCase()}</button>
        </div>
      </form>
    </section>
  );
}

export function Automations({
  api,
  onError,
  site,
}: {
  api: SiteApi;
  onError(error: unknown): string;
  site?: Pick<SiteSummary, 'origin' | 'iconUrl'>;
}) {
  const automations = useLoad(() => api.automations(), onError, [api]);
  const audiences = useLoad(() => api.audiences().then((reply) => reply.audiences), onError, [api]);
  return (
    <div className="screen">
      <h1>Automations</h1>
      <p className="muted">
        Messages the provider sends by itself. A conversion is an order of the subscriber within the window after a click.
      </p>
      {automations.error && (
        <p className="error" role="alert">
          {automations.error}
        </p>
      )}
      {automations.loading && !automations.value && <p className="muted">Loading…</p>}
      {automations.value?.map((automation) => (
        <AutomationCard
          key={automation.kind}
          automation={automation}
          api={api}
          onError={onError}
          onSaved={automations.reload}
          site={site}
          audiences={audiences.value ?? []}
        />
      ))}
    </div>
  );
}
