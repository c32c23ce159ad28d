import { useState, type FormEvent } from 'react';
import type { SiteSummary } from '../../contract/owner-api.ts';
import { ApiError, sitesFor } from './api.ts';

export function SignIn(props: { notice: string | null; onSignedIn(key: string, sites: SiteSummary[]): void; onCancel?: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(trimmed)) {
      setError('An owner key is letters, digits, "_" and "-" (push-kit serve printed it when it created it).');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      props.onSignedIn(trimmed, await sitesFor(trimmed));
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 401
          ? 'This key is not the owner key of any site on this server.'
          : (failure as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card signin" onSubmit={submit} aria-labelledby="signin-title">
      <h1 id="signin-title">push-kit dashboard</h1>
      <p>
        Sign in with your key: the site's owner key, or the one an owner gave you. It is kept in this browser tab only, until you close it
        or sign out.
      </p>
      {props.notice && <p className="notice">{props.notice}</p>}
      <label htmlFor="owner-key">Owner key</label>
      <input
        id="owner-key"
        type="password"
        autoComplete="current-password"
        spellCheck={false}
        value={key}
        onChange={(event) => setKey(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'signin-error' : undefined}
        required
      />
      {error && (
        <p id="signin-error" className="error" role="alert">
          {error}
        </p>
      )}
      <div className="buttons">
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {props.onCancel && (
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
