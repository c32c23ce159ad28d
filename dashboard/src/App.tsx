import { useEffect, useMemo, useState } from 'react';
import { ApiError, signInWithLink, siteApi, sitesFor } from './api.ts';
import { Automations } from './Automations.tsx';
import { ClockSetting } from './clock/index.ts';
import { Campaigns } from './campaigns/Campaigns.tsx';
import { Compose } from './compose/Compose.tsx';
import { Feeds } from './feeds/Feeds.tsx';
import { Import } from './imports/Import.tsx';
import { Overview } from './Overview.tsx';
import { Segments } from './segments/Segments.tsx';
import { SignIn } from './SignIn.tsx';
import { Subscribers } from './subscribers/Subscribers.tsx';
import { Webhooks } from './webhooks/Webhooks.tsx';
import { AuditLog } from './members/AuditLog.tsx';
import { Members } from './members/Members.tsx';
import { useLoad } from './useLoad.ts';
import { routeOf } from './route.ts';
import { ROLES, type Role } from '../../contract/members.ts';
import { loadSession, saveSession, withoutSite, withSites, type Session } from './session.ts';

/** The screens, each shown to the roles that may use it (the provider checks every call whatever is shown). */
const SCREENS: readonly { path: string; label: string; role: Role }[] = [
  { path: 'overview', label: 'Overview', role: 'viewer' },
  { path: 'campaigns', label: 'Campaigns', role: 'viewer' },
  { path: 'compose', label: 'Send a notification', role: 'editor' },
  { path: 'automations', label: 'Automations', role: 'viewer' },
  { path: 'segments', label: 'Segments', role: 'viewer' },
  { path: 'subscribers', label: 'Subscribers', role: 'editor' },
  { path: 'feeds', label: 'Feeds', role: 'viewer' },
  { path: 'webhooks', label: 'Webhooks', role: 'owner' },
  { path: 'import', label: 'Import', role: 'owner' },
  { path: 'members', label: 'Members', role: 'owner' },
  { path: 'audit', label: 'Audit log', role: 'owner' },
];

const reaches = (role: Role, needed: Role) => ROLES.indexOf(role) >= ROLES.indexOf(needed);

/** A sign-in link's token (`#sign-in=pl_...`, printed by push-kit members add --link), once. */
function linkToken(): string | null {
  return /^#sign-in=(pl_[A-Za-z0-9_-]{1,100})$/.exec(window.location.hash)?.[1] ?? null;
}

/** The screen named by the hash: `#/subscribers/<id>` and the like (a query after `?` is the screen's); the key never goes there. */
function useRoute(): string[] {
  const read = () => routeOf(window.location.hash);
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
      setNotice(`Your key of ${current.site.name} is no longer valid (replaced, or you were removed); sign in again.`);
    }
    return error instanceof Error ? error.message : String(error);
  };
  const me = useLoad(async () => (api ? api.me() : null), onError, [api]);

  // A sign-in link: traded once for the member's own key, which the tab keeps; the token leaves the address bar.
  useEffect(() => {
    const trade = () => {
      const token = linkToken();
      if (!token) return;
      history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
      signInWithLink(token)
        .then(async (signedIn) => {
          update(withSites(loadSession(), signedIn.key, await sitesFor(signedIn.key)));
          const { name, role } = signedIn.member;
          setNotice(`Welcome, ${name}: you are signed in to ${signedIn.site} as ${role === 'viewer' ? 'a' : 'an'} ${role}.`);
          window.location.hash = '#/overview';
        })
        .catch((failure: unknown) => setNotice(failure instanceof Error ? failure.message : String(failure)));
    };
    trade();
    window.addEventListener('hashchange', trade);
    return () => window.removeEventListener('hashchange', trade);
  }, []);

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

  const role = me.value?.role ?? 'viewer';
  const screens = SCREENS.filter((entry) => reaches(role, entry.role));
  const screen = screens.some((entry) => entry.path === route[0]) ? route[0]! : 'overview';
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
          {me.value && (
            <span className="signed-in" data-role={me.value.role}>
              Signed in as <strong>{me.value.name}</strong> ({me.value.role})
            </span>
          )}
          <ClockSetting />
          <button type="button" className="link-button" onClick={() => setAddingSite(true)}>
            Sign in to another site
          </button>
          <button type="button" className="link-button" onClick={() => update({ sites: [], current: null })}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="tabs" aria-label="Screens">
        {screens.map((entry) => (
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
        {screen === 'campaigns' && <Campaigns api={api} onError={onError} selected={route[1]} canEdit={reaches(role, 'editor')} />}
        {screen === 'compose' && <Compose api={api} site={current.site} onError={onError} route={route.slice(1)} />}
        {screen === 'automations' && <Automations api={api} onError={onError} site={current.site} />}
        {screen === 'segments' && <Segments api={api} onError={onError} />}
        {screen === 'subscribers' && <Subscribers api={api} onError={onError} selected={route[1]} />}
        {screen === 'feeds' && <Feeds api={api} onError={onError} canEdit={reaches(role, 'editor')} />}
        {screen === 'import' && <Import api={api} onError={onError} />}
        {screen === 'webhooks' && <Webhooks api={api} onError={onError} selected={route[1]} />}
        {screen === 'members' && me.value && <Members api={api} me={me.value} onError={onError} />}
        {screen === 'audit' && <AuditLog api={api} onError={onError} />}
      </main>
    </div>
  );
}
