// A campaign's send rate (throttlePerMinute): its deliveries go out one slot apart, 60 000 / rate ms, whichever
// provider on the database sends them. The next free slot is the campaign row's throttle_next_at, read and moved
// under that row's lock in the claiming transaction, so two providers sharing a campaign share its rate rather
// than each sending at it. Times are the database server's (clock_timestamp()): one clock for every provider.
import type { Queryable } from '../db/database.ts';

/** How far behind a throttled campaign may fall and catch up at once (a runner that was busy): one second's slots. */
const CATCH_UP_MS = 1000;

export interface ClaimSlots {
  /** Deliveries that may be claimed now: `limit` for a campaign without a rate, 0 when its next slot is to come. */
  free: number;
  /** With free 0: milliseconds until the next slot. */
  waitMs: number;
  /** Takes `count` (at most free) of the slots: the next free slot moves past them. */
  take(count: number): Promise<void>;
}

/** The slots a claim of up to `limit` deliveries of the campaign may take now (locks a throttled campaign's row). */
export async function claimSlots(tx: Queryable, campaignId: string, limit: number): Promise<ClaimSlots> {
  // FOR UPDATE locks only a row it returns: a campaign without a rate is not locked, its claims run side by side
  const { rows } = await tx.query<{ rate: number; next_ms: number | null; now_ms: number }>(
    `SELECT throttle_per_minute AS rate, extract(epoch FROM throttle_next_at) * 1000 AS next_ms,
       extract(epoch FROM clock_timestamp()) * 1000 AS now_ms
     FROM campaigns WHERE id = $1 AND throttle_per_minute IS NOT NULL FOR UPDATE`,
    [campaignId],
  );
  const row = rows[0];
  if (!row) return { free: limit, waitMs: 0, take: async () => undefined };
  const interval = 60_000 / row.rate;
  const now = Number(row.now_ms);
  const base = Math.max(row.next_ms === null ? now : Number(row.next_ms), now - Math.max(CATCH_UP_MS, interval) + interval);
  if (base > now) return { free: 0, waitMs: Math.max(1, Math.ceil(base - now)), take: async () => undefined };
  const free = Math.min(limit, Math.floor((now - base) / interval) + 1);
  return {
    free,
    waitMs: 0,
    take: async (count: number) => {
      await tx.query(`UPDATE campaigns SET throttle_next_at = to_timestamp($2::double precision / 1000) WHERE id = $1`, [
        campaignId,
        base + Math.min(count, free) * interval,
      ]);
    },
  };
}

/** When a throttled campaign's `pending` deliveries will have gone, from its next slot (or now); ms. */
export function throttledFinish(rate: number, pending: number, nextSlot: number | null, now: number): number {
  return Math.max(now, nextSlot ?? now) + Math.max(0, pending - 1) * (60_000 / rate);
}
