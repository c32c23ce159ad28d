// How long a sender's claim on a delivery lasts without being renewed: the time after which deliveries claimed by a
// sender that died (kill -9, crash, machine lost) are taken by another provider process on the same PostgreSQL.
// A live sender renews its claims every quarter of the lease. Default 20 s; PUSHKIT_CLAIM_LEASE_SECONDS sets it
// for the process (serve, send): a shorter lease resumes a crashed sender's share sooner, but every process on one
// database must use the same lease, and a renewal must reach the database within a quarter of it. The embedded
// database, which one process opens at a time, drops every claim when it is opened and never waits for the lease.
import { ServerError } from '../errors.ts';

export const CLAIM_LEASE_ENV = 'PUSHKIT_CLAIM_LEASE_SECONDS';
export const DEFAULT_CLAIM_LEASE_SECONDS = 20;
const MIN_SECONDS = 2;
const MAX_SECONDS = 3600;

/** The lease in seconds (a whole number from 2 to 3600; unset: 20), or null when the setting is not one. */
export function claimLeaseSetting(value: string | undefined = process.env[CLAIM_LEASE_ENV]): number | null {
  if (value === undefined || value.trim() === '') return DEFAULT_CLAIM_LEASE_SECONDS;
  if (!/^\d{1,4}$/.test(value.trim())) return null;
  const seconds = Number(value.trim());
  return seconds >= MIN_SECONDS && seconds <= MAX_SECONDS ? seconds : null;
}

/** This process's lease in seconds; a setting that is not one is E_CLAIM_LEASE_SETTING. */
export function claimLeaseSeconds(): number {
  const seconds = claimLeaseSetting();
  if (seconds === null) throw new ServerError('E_CLAIM_LEASE_SETTING', { value: String(process.env[CLAIM_LEASE_ENV]) });
  return seconds;
}

/**
 * SQL true for a delivery `d` no live sender holds: never claimed, given back for a retry, or claimed by a sender
 * that died (its claim older than the lease). `lease` is the lease in seconds (written into the SQL as a whole
 * number) or the query's parameter holding it (`'$2'`). The scheduler's due campaigns, the automations' claims and
 * their withdrawals (only a message no sender holds may be withdrawn) all read this one condition.
 */
export function unclaimed(lease: number | `$${number}` = claimLeaseSeconds()): string {
  const seconds = typeof lease === 'number' ? String(Math.trunc(lease)) : lease;
  return `(d.claimed_at IS NULL OR d.claimed_at < now() - make_interval(secs => ${seconds}))`;
}

/** How often a live sender renews the claims it holds: a quarter of the lease (5 s of the default 20 s). */
export function claimRenewMs(leaseSeconds: number): number {
  return leaseSeconds * 250;
}
