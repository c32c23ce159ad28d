// CSV as the owner's spreadsheet opens it safely: a cell whose text a spreadsheet would run as a formula (=, +,
// -, @, a tab or a carriage return first) gets an apostrophe before it; a cell with a comma, quote or line
// break is quoted. Lines end with CRLF (RFC 4180). Used by every CSV export (campaign results, subscribers).

/** One cell: formula-looking text defused, quoted when it must be; null is empty. */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (cells: (string | number | null)[]) => `${cells.map(csvCell).join(',')}\r\n`;
