import { useEffect, useState, type FormEvent } from 'react';
import { formatNumber } from './api.ts';

/** Previous and next page of a long list, and a jump to any page when there is more than one. */
export function Pager(props: { offset: number; total: number; pageSize: number; onChange(offset: number): void }) {
  const { offset, total, pageSize, onChange } = props;
  return (
    <div className="buttons pager">
      <button type="button" className="secondary" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - pageSize))}>
        Previous page
      </button>
      <button type="button" className="secondary" disabled={offset + pageSize >= total} onClick={() => onChange(offset + pageSize)}>
        Next page
      </button>
      {total > pageSize && <PageJump offset={offset} total={total} pageSize={pageSize} onJump={onChange} />}
    </div>
  );
}

/** Straight to page n of a long list: the server reads that page only, however deep. */
function PageJump({ offset, total, pageSize, onJump }: { offset: number; total: number; pageSize: number; onJump(offset: number): void }) {
  const pages = Math.ceil(total / pageSize);
  const [text, setText] = useState(String(offset / pageSize + 1));
  useEffect(() => setText(String(offset / pageSize + 1)), [offset, pageSize]);
  const jump = (event: FormEvent) => {
    event.preventDefault();
    const page = Math.min(pages, Math.max(1, Math.trunc(Number(text)) || 1));
    setText(String(page));
    onJump((page - 1) * pageSize);
  };
  return (
    <form className="page-jump" onSubmit={jump}>
      <label htmlFor="page-number">Page</label>
      <input id="page-number" type="number" min={1} max={pages} value={text} onChange={(event) => setText(event.target.value)} />
      <span>of {formatNumber(pages)}</span>
      <button type="submit" className="secondary">
        Go
      </button>
    </form>
  );
}
