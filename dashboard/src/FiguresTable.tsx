import type { ReactNode } from 'react';

export interface Column {
  heading: ReactNode;
  /** Figures are right-aligned, heading and cells alike. */
  numeric?: boolean;
}

/**
 * A table of rows under column headings, in the wrapper that scrolls it sideways on a narrow screen.
 * `children` are the body's rows; `note` goes under the table, inside the wrapper.
 */
export function FiguresTable(props: { columns: Column[]; label?: string; className?: string; children: ReactNode; note?: ReactNode }) {
  return (
    <div className="table-wrap">
      <table aria-label={props.label} className={props.className}>
        <thead>
          <tr>
            {props.columns.map((column, index) => (
              <th key={index} scope="col" className={column.numeric ? 'num' : undefined}>
                {column.heading}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
      {props.note}
    </div>
  );
}
