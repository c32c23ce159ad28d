import type { ReactNode } from 'react';
import type { CampaignBreakdownRow } from '../../../contract/campaign-report.ts';
import { formatNumber } from '../api.ts';
import { FiguresTable, type Column } from '../FiguresTable.tsx';
import { RATE_COLUMNS, RateCells } from './Rates.tsx';

/** A campaign's figures by browser or by variant, with the three rates of each row. */
export function Breakdown(props: {
  label: string;
  heading: string;
  rows: CampaignBreakdownRow[];
  name?(row: CampaignBreakdownRow): ReactNode;
  note?: ReactNode;
}) {
  const columns: Column[] = [
    { heading: props.heading },
    ...['Recipients', 'Sent', 'Delivered', 'Shown', 'Clicked'].map((heading) => ({ heading, numeric: true })),
    ...RATE_COLUMNS,
  ];
  return (
    <FiguresTable label={props.label} columns={columns} note={props.note}>
      {props.rows.map((row) => (
        <tr key={row.key} data-row={row.key}>
          <td>{props.name ? props.name(row) : row.key}</td>
          <td className="num">{formatNumber(row.recipients)}</td>
          <td className="num">{formatNumber(row.sent)}</td>
          <td className="num">{formatNumber(row.delivered)}</td>
          <td className="num">{formatNumber(row.shown)}</td>
          <td className="num">{formatNumber(row.clicked)}</td>
          <RateCells figures={row} />
        </tr>
      ))}
    </FiguresTable>
  );
}
