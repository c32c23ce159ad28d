// The Import screen: another service's subscribers into this site (docs/migrating.md). Choose the file (and the
// previous service's VAPID key pair, when it had its own), check it with a dry run (the counts and the first
// refused rows by line, nothing written), then import it: the upload's progress, then the report.
import { useState, type FormEvent } from 'react';
import {
  IMPORT_FORMAT_CHOICES,
  type ImportFormatChoice,
  type ImportReport,
  type ImportVapidKeyRequest,
} from '../../../contract/imports.ts';
import { formatNumber, type SiteApi } from '../api.ts';
import { ImportReportView } from './ImportReportView.tsx';

const FORMAT_LABELS: Record<ImportFormatChoice, string> = {
  auto: 'Decide from the first line',
  csv: 'CSV (endpoint, p256dh, auth, ...)',
  ndjson: 'NDJSON of PushSubscriptionJSON',
  onesignal: "OneSignal's subscriptions export",
};

type Stage =
  | { kind: 'idle' }
  | { kind: 'sending'; dryRun: boolean; sent: number; total: number }
  | { kind: 'done'; report: ImportReport }
  | { kind: 'failed'; message: string };

async function readKeyPair(file: File): Promise<ImportVapidKeyRequest> {
  let pair: Partial<ImportVapidKeyRequest>;
  try {
    pair = JSON.parse(await file.text()) as Partial<ImportVapidKeyRequest>;
  } catch {
    pair = {};
  }
  if (typeof pair.publicKey !== 'string' || typeof pair.privateKey !== 'string') {
    throw new Error(`${file.name}: a VAPID key file is {"publicKey": "...", "privateKey": "..."}`);
  }
  return { publicKey: pair.publicKey, privateKey: pair.privateKey };
}

export function Import({ api, onError }: { api: SiteApi; onError(error: unknown): string }) {
  const [file, setFile] = useState<File | null>(null);
  const [keyFile, setKeyFile] = useState<File | null>(null);
  const [format, setFormat] = useState<ImportFormatChoice>('auto');
  const [stage, setStage] = useState<Stage>({ kind: 'idle' });
  const busy = stage.kind === 'sending';

  const run = async (dryRun: boolean) => {
    if (!file) return;
    setStage({ kind: 'sending', dryRun, sent: 0, total: file.size });
    try {
      // The key joins the site's ring only for a real import; a dry run checks the rows.
      const vapidKeyId = keyFile && !dryRun ? await api.addImportKey(await readKeyPair(keyFile)) : undefined;
      const report = await api.importFile(
        file,
        { format, dryRun: dryRun ? '1' : '0', ...(vapidKeyId && !vapidKeyId.current ? { vapidKeyId: vapidKeyId.keyId } : {}) },
        (sent) => setStage({ kind: 'sending', dryRun, sent, total: file.size }),
      );
      setStage({ kind: 'done', report });
    } catch (error) {
      setStage({ kind: 'failed', message: onError(error) });
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(false);
  };

  return (
    <div className="screen">
      <h1>Import subscribers</h1>
      <p className="muted">
        Move the subscribers of another service (OneSignal, VWO Engage, a <code>web-push</code> setup) into this site. Each row is checked
        as a browser's subscription is; rows the site already has are left as they are, so the same file can be imported again.
      </p>
      <form className="card" onSubmit={submit} aria-label="Import a file">
        <div className="field">
          <label htmlFor="import-file">File of subscriptions</label>
          <input
            id="import-file"
            type="file"
            accept=".csv,.ndjson,.jsonl,.json,.txt,text/csv"
            disabled={busy}
            onChange={(event) => {
              setFile(event.target.files?.[0] ?? null);
              setStage({ kind: 'idle' });
            }}
          />
        </div>
        <div className="field">
          <label htmlFor="import-format">Format</label>
          <select
            id="import-format"
            value={format}
            disabled={busy}
            onChange={(event) => setFormat(event.target.value as ImportFormatChoice)}
          >
            {IMPORT_FORMAT_CHOICES.map((choice) => (
              <option key={choice} value={choice}>
                {FORMAT_LABELS[choice]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="import-key">The previous service's VAPID key pair (optional, a JSON file)</label>
          <input
            id="import-key"
            type="file"
            accept=".json,application/json"
            disabled={busy}
            onChange={(event) => setKeyFile(event.target.files?.[0] ?? null)}
          />
          <small className="muted">
            Subscriptions are bound to the key that made them: without it, pushes to them are refused until each browser moves to this
            site's key on its next visit.
          </small>
        </div>
        <div className="buttons">
          <button type="button" className="secondary" disabled={!file || busy} onClick={() => void run(true)}>
            Check (dry run)
          </button>
          <button type="submit" disabled={!file || busy}>
            Import
          </button>
        </div>
      </form>
      {stage.kind === 'sending' && (
        <section className="card" aria-labelledby="import-progress-title" aria-live="polite">
          <h2 id="import-progress-title">
            {stage.dryRun ? 'Checking' : 'Importing'} {file?.name}
          </h2>
          <label htmlFor="import-progress">
            {stage.sent < stage.total
              ? `${formatNumber(stage.sent)} of ${formatNumber(stage.total)} bytes read`
              : 'Storing the last rows...'}
          </label>
          <progress id="import-progress" max={Math.max(1, stage.total)} value={stage.sent} />
        </section>
      )}
      {stage.kind === 'failed' && (
        <p className="error" role="alert">
          {stage.message}
        </p>
      )}
      {stage.kind === 'done' && (
        <ImportReportView report={stage.report} onImport={stage.report.dryRun ? () => void run(false) : undefined} />
      )}
    </div>
  );
}
