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

/** How often a live sender renews the claims it holds: a quarter of the lease (5 s of the default 20 s). */
export function claimRenewMs(leaseSeconds: number): number {
  return leaseSeconds * 250;
}
