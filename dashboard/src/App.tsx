import { useEffect, useMemo, useState } from 'react';
import { ApiError, siteApi } from './api.ts';
import { Automations } from './Automations.tsx';
import { Compose } from './compose/Compose.tsx';
import { Import } from './imports/Import.tsx';
import { Overview } from './Overview.tsx';
import { Segments } from './segments/Segments.tsx';
import { SignIn } from './SignIn.tsx';
import { Subscribers } from './subscribers/Subscribers.tsx';
import { Webhooks } from './webhooks/Webhooks.tsx';
import { loadSession, saveSession, withoutSite, withSites, type Session } from './session.ts';

const SCREENS = [
  { path: 'overview', label: 'Overview' },
  { path: 'compose', label: 'Send a notification' },
  { path: 'automations', label: 'Automations' },
  { path: 'segments', label: 'Segments' },
  { path: 'subscribers', label: 'Subscribers' },
  { path: 'webhooks', label: 'Webhooks' },
  { path: 'import', label: 'Import' },
] as const;

/** The screen named by the hash: `#/subscribers/<id>` and the like; the key never goes there. */
function useRoute(): string[] {
  const read = () => window.location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function App() {
  const [session, setSession] = useState<Session>(loadSession);
  const [addingSite, setAddingSite] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const route = useRoute();

  const update = (next: Session) => {
    saveSession(next);
    setSession(next);
  };
  const current = session.sites.find((entry) => entry.site.name === session.current) ?? session.sites[0];
  const api = useMemo(() => (current ? siteApi(current.key, current.site.name) : null), [current]);

  /** A 401 means the key was rotated: sign out of that site and say so. */
  const onError = (error: unknown): string => {
    if (error instanceof ApiError && error.status === 401 && current) {
      update(withoutSite(session, current.site.name));
      setNotice(`The owner key of ${current.site.name} is no longer valid; sign in again.`);
    }
    return error instanceof Error ? error.message : String(error);
  };

  if (!current || !api || addingSite) {
    return (
      <div className="signin-page">
        <SignIn
          notice={notice}
          onCancel={current ? () => setAddingSite(false) : undefined}
          onSignedIn={(key, sites) => {
            update(withSites(session, key, sites));
            setAddingSite(false);
            setNotice(null);
            if (!window.location.hash) window.location.hash = '#/overview';
          }}
        />
      </div>
    );
  }

  const screen = SCREENS.some((entry) => entry.path === route[0]) ? route[0]! : 'overview';
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">push-kit</span>
        <div className="site-switcher">
          {session.sites.length > 1 ? (
            <label>
              Site{' '}
              <select value={current.site.name} onChange={(event) => update({ ...session, current: event.target.value })}>
                {session.sites.map((entry) => (
                  <option key={entry.site.name} value={entry.site.name}>
                    {entry.site.companyName} ({entry.site.name})
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span className="site-name">
              {current.site.companyName} <small>({current.site.name})</small>
            </span>
          )}
          <button type="button" className="link-button" onClick={() => setAddingSite(true)}>
            Sign in to another site
          </button>
          <button type="button" className="link-button" onClick={() => update({ sites: [], current: null })}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="tabs" aria-label="Screens">
        {SCREENS.map((entry) => (
          <a key={entry.path} href={`#/${entry.path}`} aria-current={screen === entry.path ? 'page' : undefined}>
            {entry.label}
          </a>
        ))}
      </nav>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <main key={current.site.name}>
        {screen === 'overview' && <Overview api={api} onError={onError} />}
        {screen === 'compose' && <Compose api={api} site={current.site} onError={onError} />}
        {screen === 'automations' && <Automations api={api} onError={onError} />}
        {screen === 'segments' && <Segments api={api} onError={onError} />}
        {screen === 'subscribers' && <Subscribers api={api} onError={onError} selected={route[1]} />}
        {screen === 'import' && <Import api={api} onError={onError} />}
        {screen === 'webhooks' && <Webhooks api={api} onError={onError} selected={route[1]} />}
      </main>
    </div>
  );
}
