// The dashboard's campaign timing (docs/campaigns.md), rendered as the compose screen's progress and a campaign's
// page show it: the send rate and when it should finish, and a best-hour campaign's two groups side by side.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CampaignTiming } from '../../dashboard/src/CampaignTiming.tsx';
import type { Campaign } from '../../contract/owner-api.ts';

const campaign = (fields: Partial<Campaign>) =>
  ({ throttlePerMinute: null, deliverAt: null, estimatedFinishAt: null, ...fields }) as Campaign;
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('CampaignTiming', () => {
  it('says the rate and when a throttled campaign should finish; nothing for one sent at once', () => {
    const html = renderToStaticMarkup(
      <CampaignTiming campaign={campaign({ throttlePerMinute: 600, estimatedFinishAt: '2026-11-27T10:30:00.000Z' })} />,
    );
    expect(html).toContain('data-estimated-finish="2026-11-27T10:30:00.000Z"');
    expect(text(html)).toMatch(/^Sent at 600 a minute\. Should finish by .+\.$/);
    expect(renderToStaticMarkup(<CampaignTiming campaign={campaign({})} />)).toBe('');
  });

  it("compares a best-hour campaign's group with the held-out share sent at once", () => {
    const group = (recipients: number, delivered: number, clicked: number) => ({
      recipients,
      delivered,
      clicked,
      clickRate: delivered ? clicked / delivered : null,
    });
    const html = renderToStaticMarkup(
      <CampaignTiming
        campaign={campaign({
          deliverAt: 'best-hour',
          bestHour: { holdoutShare: 0.1, bestHour: group(900, 880, 66), holdout: group(100, 98, 4) },
        })}
      />,
    );
    expect(html).toContain('aria-label="Best hour against sent at once"');
    const rows = [...html.matchAll(/<tr data-group="([^"]+)">(.*?)<\/tr>/g)].map(([, key, row]) => [key, text(row!)]);
    expect(rows).toEqual([
      ['best-hour', 'At their best hour 900 880 66 7.5%'],
      ['holdout', 'Sent at once (10% held out) 100 98 4 4.1%'],
    ]);
  });
});
