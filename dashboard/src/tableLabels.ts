// Tables read as cards on a phone (styles.css, under 600 px): each cell then shows its column's name before its
// value, from a data-label the cell gets here. One observer for the whole app, so every screen's tables (whoever
// wrote them) reflow without each component naming its columns twice; a cell that has its own data-label keeps it.
function labelTable(table: HTMLTableElement): void {
  const head = table.tHead?.rows[table.tHead.rows.length - 1];
  if (!head) return;
  const names: string[] = [];
  for (const cell of Array.from(head.cells)) {
    for (let span = 0; span < cell.colSpan; span += 1) names.push(cell.textContent?.trim() ?? '');
  }
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      let column = 0;
      for (const cell of Array.from(row.cells)) {
        const name = names[column];
        if (name && cell.dataset.label === undefined && cell.colSpan === 1) cell.dataset.label = name;
        column += cell.colSpan;
      }
    }
  }
}

/** Labels every table under `root` now and whenever the app renders new rows. */
export function labelTableCells(root: HTMLElement): void {
  let queued = false;
  const run = () => {
    queued = false;
    for (const table of Array.from(root.querySelectorAll('table'))) labelTable(table);
  };
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(run);
  }).observe(root, { childList: true, subtree: true });
  run();
}
