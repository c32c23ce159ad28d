// The site's audit log, for owners: every change and send made through the owner API, who made it, what, when;
// newest first, a page at a time.
import { useState } from 'react';
import { formatNumber, type SiteApi } from '../api.ts';
import { Time } from '../clock/index.ts';
import { FiguresTable } from '../FiguresTable.tsx';
import { Pager } from '../Pager.tsx';
import { useLoad } from '../useLoad.ts';

const PAGE = 50;
const COLUMNS = [{ heading: 'When' }, { heading: 'Who' }, { heading: 'What' }, { heading: 'Target' }];

export function AuditLog({ api, onError }: { api: SiteApi; onError(error: unknown): string }) {
  const [offset, setOffset] = useState(0);
  const page = useLoad(() => api.audit(PAGE, offset), onError, [api, offset]);
  return (
    <div className="screen">
      <h1 id="audit-title">Audit log</h1>
      <section className="card" aria-labelledby="audit-title">
        {page.error && (
          <p className="error" role="alert">
            {page.error}
          </p>
        )}
        {page.value && page.value.total === 0 && <p className="muted">Nothing changed or sent yet.</p>}
        {page.value && page.value.total > 0 && (
          <>
            <p className="muted">{formatNumber(page.value.total)} entries, newest first.</p>
            <FiguresTable columns={COLUMNS} label="Audit log">
              {page.value.entries.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <Time value={entry.at} />
                  </td>
                  <td>
                    {entry.memberName}
                    {entry.memberId && <div className="muted mono">{entry.memberId}</div>}
                  </td>
                  <td className="mono">{entry.action}</td>
                  <td className="mono">{entry.target ?? '—'}</td>
                </tr>
              ))}
            </FiguresTable>
            <Pager offset={offset} total={page.value.total} pageSize={PAGE} onChange={setOffset} />
          </>
        )}
      </section>
    </div>
  );
}
