import type { Campaign, CampaignGroupFigures } from '../../contract/owner-api.ts';
import { formatDate, formatNumber } from './api.ts';
import { FiguresTable, type Column } from './FiguresTable.tsx';

const COLUMNS: Column[] = [
  { heading: 'Group' },
  { heading: 'Recipients', numeric: true },
  { heading: 'Delivered', numeric: true },
  { heading: 'Clicked', numeric: true },
  { heading: 'Click rate', numeric: true },
];

const rate = (figures: CampaignGroupFigures) => (figures.clickRate === null ? '—' : `${(figures.clickRate * 100).toFixed(1)}%`);

/**
 * A campaign's timing (docs/campaigns.md): its send rate and when it should finish, and for a best-hour campaign
 * its best-hour group against the held-out share sent at once.
 */
export function CampaignTiming({ campaign }: { campaign: Campaign }) {
  const { bestHour } = campaign;
  return (
    <>
      {(campaign.throttlePerMinute !== null || campaign.estimatedFinishAt) && (
        <p data-estimated-finish={campaign.estimatedFinishAt ?? ''}>
          {campaign.throttlePerMinute !== null && `Sent at ${formatNumber(campaign.throttlePerMinute)} a minute. `}
          {campaign.estimatedFinishAt && `Should finish by ${formatDate(campaign.estimatedFinishAt)}.`}
        </p>
      )}
      {bestHour && (
        <FiguresTable label="Best hour against sent at once" columns={COLUMNS}>
          {(
            [
              ['best-hour', 'At their best hour', bestHour.bestHour],
              ['holdout', `Sent at once (${Math.round(bestHour.holdoutShare * 100)}% held out)`, bestHour.holdout],
            ] as const
          ).map(([key, label, figures]) => (
            <tr key={key} data-group={key}>
              <td>{label}</td>
              <td className="num">{formatNumber(figures.recipients)}</td>
              <td className="num">{formatNumber(figures.delivered)}</td>
              <td className="num">{formatNumber(figures.clicked)}</td>
              <td className="num">{rate(figures)}</td>
            </tr>
          ))}
        </FiguresTable>
      )}
    </>
  );
}
