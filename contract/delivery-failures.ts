// Why deliveries failed, as the owner API answers it and the CLI, the dashboard and the provider's log say it:
// grouped by the push service's status, reason and host (`403 BadJwtToken from web.push.apple.com: 12`,
// `network: connection refused: 3`). A reason whose fix is the owner's links its explanation in
// docs/delivery-failures.md.

/** Failed or expired deliveries with one status, reason and push service. */
export interface DeliveryFailureGroup {
  /** The push service's HTTP status; null when none answered (a network error, a refusal before sending). */
  status: number | null;
  /** The push service's reason, its status text or the network error's class: at most 256 bytes, no secret. */
  reason: string;
  /** The push service's host name. */
  host: string | null;
  count: number;
  /**
   * Where docs/delivery-failures.md explains it, when the fix is the owner's; else null. A path on the provider
   * (its dashboard's help page with the reason's anchor); the command line names the installed package's file.
   */
  docsUrl: string | null;
}

/** A subscriber's last failed or expired delivery. */
export interface LastDeliveryFailure {
  campaignId: string;
  outcome: 'failed' | 'expired';
  status: number | null;
  reason: string;
  host: string | null;
  /** Requests made for it, retries included. */
  attempts: number;
  at: string;
  docsUrl: string | null;
}

/** The guide to the owner's fixes, served by the provider (its dashboard's help page, from docs/delivery-failures.md). */
export const DELIVERY_FAILURES_DOCS = '/dashboard/help/delivery-failures';

const APPLE_HOST = /(^|\.)push\.apple\.com$/;

/** The docs anchor of a reason that is the owner's to fix, else undefined. */
function docsAnchor(status: number | null, reason: string, host: string | null): string | undefined {
  if (status === 403 && (/BadJwtToken/i.test(reason) || APPLE_HOST.test(host ?? ''))) return 'vapid-subject-badjwttoken';
  if (status === 401 || status === 403) return 'vapid-key-mismatch';
  if (status === 413 || (status === null && /^push payload is \d+ bytes/.test(reason))) return 'payload-too-large';
  if (status === 400) return 'bad-encryption';
  return undefined;
}

export function failureDocsUrl(status: number | null, reason: string, host: string | null): string | null {
  const anchor = docsAnchor(status, reason, host);
  return anchor ? `${DELIVERY_FAILURES_DOCS}#${anchor}` : null;
}

/** `403 BadJwtToken from web.push.apple.com`, or the reason alone when no push service answered. */
export function failureLabel(failure: Pick<DeliveryFailureGroup, 'status' | 'reason' | 'host'>): string {
  if (failure.status === null) return failure.reason;
  return `${failure.status} ${failure.reason}${failure.host ? ` from ${failure.host}` : ''}`;
}

/** `403 BadJwtToken from web.push.apple.com: 12` */
export function failureGroupLine(group: DeliveryFailureGroup): string {
  return `${failureLabel(group)}: ${group.count}`;
}
