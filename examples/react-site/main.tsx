// The calligraphy site as a small React app with push-kit/react: <PushKit /> in each page's layout (so client
// navigation and the "Remount" button mount it again, and StrictMode runs its effect twice: push.js still loads
// once), a status line from usePushKit(), and buttons that call the hook's actions from the visitor's click.
import { StrictMode, useState, useSyncExternalStore, type MouseEvent, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { PushKit, usePushKit } from 'push-kit/react';

const BASE = '/react';

function subscribeToHistory(listener: () => void): () => void {
  addEventListener('popstate', listener);
  return () => removeEventListener('popstate', listener);
}

function navigate(event: MouseEvent<HTMLAnchorElement>): void {
  event.preventDefault();
  history.pushState(null, '', event.currentTarget.href);
  dispatchEvent(new PopStateEvent('popstate'));
}

function Layout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main>
      {/* The site's push.js: added to the page once, whichever layout mounts first */}
      <PushKit src="/push.js" />
      <nav>
        <a href={`${BASE}/`} onClick={navigate}>
          Home
        </a>{' '}
        <a href={`${BASE}/pens`} onClick={navigate}>
          Pens
        </a>
      </nav>
      <h1>{title}</h1>
      {children}
      <Notifications />
    </main>
  );
}

function Notifications() {
  const { readiness, subscriberId, optedOut, optIn, optOut, tag, addToSegment } = usePushKit();
  const [segment, setSegment] = useState('');
  return (
    <section aria-label="Notifications">
      <p>
        Notifications: <output id="readiness">{readiness}</output>
        {subscriberId && (
          <>
            {' '}
            subscriber <output id="subscriber-id">{subscriberId}</output>
          </>
        )}
        {optedOut && <output id="opted-out"> (opted out)</output>}
      </p>
      <button type="button" id="notify-me" disabled={readiness !== 'ready'} onClick={(event) => optIn(event)}>
        Notify me
      </button>{' '}
      <button type="button" id="tag-gold" onClick={() => tag('plan', 'gold')}>
        I like gold nibs
      </button>{' '}
      <button type="button" id="join-segment" onClick={() => void addToSegment('pen-lovers').then((added) => setSegment(String(added)))}>
        Join pen lovers
      </button>{' '}
      <button type="button" id="opt-out" onClick={() => optOut()}>
        Stop notifications
      </button>
      {segment && <output id="segment-result"> {segment}</output>}
    </section>
  );
}

function App() {
  const path = useSyncExternalStore(subscribeToHistory, () => location.pathname);
  const [mounts, setMounts] = useState(0);
  const page =
    path === `${BASE}/pens` ? (
      <Layout title="Pens">
        <p>Gold nib pens, oblique holders.</p>
      </Layout>
    ) : (
      <Layout title="Calligraphy Submissions">
        <p>New submissions every week.</p>
      </Layout>
    );
  return (
    <>
      <button type="button" id="remount" onClick={() => setMounts(mounts + 1)}>
        Remount
      </button>
      <div key={mounts}>{page}</div>
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
