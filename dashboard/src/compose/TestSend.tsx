import { useState } from 'react';
import type { TestSendRequest } from '../../../contract/compose.ts';
import type { SiteApi } from '../api.ts';
import { registerTestDevice } from './testDevice.ts';

/**
 * "Send a test to this browser": subscribes this tab as the member's test device (once; testDevice.ts) and has the
 * provider push what the preview shows, that variant in that language, to it alone.
 */
export function TestSend({
  api,
  site,
  message,
  what,
  onError,
}: {
  api: SiteApi;
  site: string;
  /** The request to send, or why the form cannot be sent yet. */
  message: Omit<TestSendRequest, 'deviceId'> | string;
  /** What is sent, in words ("variant B in de"). */
  what: string;
  onError(error: unknown): string;
}) {
  const [deviceId, setDeviceId] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ text: string; ok: boolean } | null>(null);
  const send = async () => {
    setResult(null);
    if (typeof message === 'string') return setResult({ text: message, ok: false });
    setBusy(true);
    try {
      const device = deviceId ?? (await registerTestDevice(api, site));
      setDeviceId(device);
      const reply = await api.testSend({ ...message, deviceId: device });
      setResult(
        reply.delivered
          ? { text: `Test sent to this browser: “${reply.title}” (${what}).`, ok: true }
          : { text: `The push service did not take the test: ${reply.reason ?? 'no reason given'}.`, ok: false },
      );
    } catch (failure) {
      setResult({ text: onError(failure), ok: false });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card test-send" aria-labelledby="test-send-heading">
      <h2 id="test-send-heading">Test</h2>
      <p className="muted">Sends what the preview shows ({what}) to this browser only: it is not a subscriber and counts in no figure.</p>
      <div className="buttons">
        <button type="button" className="secondary" disabled={busy} onClick={() => void send()}>
          Send a test to this browser
        </button>
      </div>
      {result && (
        <p className={result.ok ? 'ok' : 'error'} role={result.ok ? 'status' : 'alert'} data-test-send={result.ok ? 'sent' : 'failed'}>
          {result.text}
        </p>
      )}
    </section>
  );
}
