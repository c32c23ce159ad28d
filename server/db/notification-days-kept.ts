// What the overview's notifications per day (server/stats/notification-days.ts) keep of the rows the prunes delete:
// per site and quarter hour, in notification_days_kept (migration 44). Each prune adds its deleted rows' figures in
// the statement that deletes them, so a figure is never lost or counted twice between the two.
type KeptFigure = 'delivered' | 'shown' | 'clicked' | 'conversions';

/** SQL: the quarter hour `column` falls in (every time zone's midnight is on one). */
export const quarterOf = (column: string) => `date_bin('15 minutes', ${column}, timestamptz '2000-01-01 00:00:00+00')`;

/** SQL: adds the rows `select` gives (site_hash, quarter, then `figures`, one row per site and quarter) to the kept figures. */
export function keepNotificationDays(figures: KeptFigure[], select: string): string {
  return `INSERT INTO notification_days_kept AS k (site_hash, quarter, ${figures.join(', ')}) ${select}
     ON CONFLICT (site_hash, quarter) DO UPDATE SET ${figures.map((figure) => `${figure} = k.${figure} + excluded.${figure}`).join(', ')}`;
}
