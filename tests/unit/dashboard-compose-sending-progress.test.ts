// Where a campaign being sent stands, as the compose screen's heading and progress read it
// (dashboard/src/compose/sendingProgress.ts).
import { describe, expect, it } from 'vitest';
import type { Campaign } from '../../contract/owner-api.ts';
import { sendingProgress } from '../../dashboard/src/compose/sendingProgress.ts';

const now = Date.parse('2026-05-01T12:00:00Z');
const campaign = (change: Partial<Campaign>) => ({ status: 'sending', pending: 0, nextDueAt: null, ...change }) as Campaign;

describe('sendingProgress', () => {
  it('is sending until the first copy of the campaign arrives', () => {
    expect(sendingProgress(null, now)).toEqual({ done: false, waiting: false, heading: 'Sending…' });
  });

  it('is sending while messages are pending and due', () => {
    expect(sendingProgress(campaign({ pending: 3 }), now)).toEqual({ done: false, waiting: false, heading: 'Sending…' });
    expect(sendingProgress(campaign({ pending: 3, nextDueAt: '2026-05-01T11:59:00Z' }), now).heading).toBe('Sending…');
  });

  it('is scheduled while pending messages wait for a time ahead', () => {
    expect(sendingProgress(campaign({ status: 'scheduled', pending: 3, nextDueAt: '2026-05-02T09:00:00Z' }), now)).toEqual({
      done: false,
      waiting: true,
      heading: 'Scheduled',
    });
  });

  it('is sent once nothing is pending', () => {
    expect(sendingProgress(campaign({ status: 'done' }), now)).toEqual({ done: true, waiting: false, heading: 'Sent' });
  });

  it('says cancelled whatever is left', () => {
    expect(sendingProgress(campaign({ status: 'cancelled' }), now)).toEqual({ done: true, waiting: false, heading: 'Cancelled' });
    expect(sendingProgress(campaign({ status: 'cancelled', pending: 2 }), now).heading).toBe('Cancelled');
  });
});
