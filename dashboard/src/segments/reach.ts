import { formatNumber } from '../api.ts';

/**
 * Members and who of them a campaign reaches, in one sentence the segment list, the audience list and the
 * compose estimate share, so their numbers agree or say why not: "100 members, 96 can receive: 4
 * unsubscribed, blocked or expired (or without a push subscription)".
 */
export function describeReach(members: number, reachable: number): string {
  const of = `${formatNumber(members)} member${members === 1 ? '' : 's'}`;
  if (members === 0) return 'No members';
  if (reachable === members) return `${of}, all can receive`;
  const others = members - reachable;
  return `${of}, ${formatNumber(reachable)} can receive: ${formatNumber(others)} unsubscribed, blocked or expired`;
}
