// An import's report: the counts, the refused rows by line, the segments it made; after a dry run, the way on.
import type { ImportReport } from '../../../contract/imports.ts';
import { formatNumber } from '../api.ts';

export function ImportReportView({ report, onImport }: { report: ImportReport; onImport?: () => void }) {
  const figures: [string, number][] = [
    ['Rows', report.rows],
    [report.dryRun ? 'Would be imported' : 'Imported', report.imported],
    ['Already there', report.existing],
    ['Refused', report.invalid],
  ];
  if (report.rekeyed > 0) figures.push([report.dryRun ? 'Would move to the key' : 'Moved to the key', report.rekeyed]);
  return (
    <section className="card" aria-labelledby="import-report-title" aria-live="polite">
      <h2 id="import-report-title">{report.dryRun ? 'Dry run: nothing was written' : 'Imported'}</h2>
      <p className="muted">
        Format {report.format}, {formatNumber(report.bytes)} bytes in {(report.durationMs / 1000).toFixed(1)} s
        {report.vapidKeyId ? `; signed with the key ${report.vapidKeyId} of the site's key ring` : ''}.
      </p>
      <dl className="results" aria-label="Import figures">
        {figures.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{formatNumber(value)}</dd>
          </div>
        ))}
      </dl>
      {report.problems.length > 0 && (
        <div className="table-wrap">
          <table aria-label="Refused rows">
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {report.problems.map((problem) => (
                <tr key={`${problem.line}-${problem.code}`}>
                  <td className="mono">{problem.line}</td>
                  <td>{problem.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {report.invalid > report.problems.length && (
            <p className="muted">
              {formatNumber(report.invalid - report.problems.length)} more refused rows; the first {report.problems.length} are listed.
            </p>
          )}
        </div>
      )}
      {report.segmentsCreated.length > 0 && (
        <p>
          Segments {report.dryRun ? 'to create' : 'created'}: {report.segmentsCreated.join(', ')}
        </p>
      )}
      {report.ignoredColumns.length > 0 && <p className="muted">Columns not read: {report.ignoredColumns.join(', ')}</p>}
      {onImport && (
        <div className="buttons">
          <button type="button" onClick={onImport}>
            Import {formatNumber(report.imported)} subscribers
          </button>
        </div>
      )}
    </section>
  );
}
