import type { Campaign } from '../../contract/owner-api.ts';
import { formatNumber } from './api.ts';
import { useDisplayZone } from './clock/index.ts';
import { winnerInWords } from './campaigns/words.ts';
import { FiguresTable, type Column } from './FiguresTable.tsx';
import { variantLetter } from './variantLetter.ts';

const COLUMNS: Column[] = [
  { heading: 'Variant' },
  { heading: 'Recipients', numeric: true },
  { heading: 'Delivered', numeric: true },
  { heading: 'Clicked', numeric: true },
  { heading: 'Click rate', numeric: true },
];

/** An A/B test's variants with their figures, and the winner or when it is chosen (never a time already past). */
export function VariantFigures({ campaign }: { campaign: Campaign }) {
  const zone = useDisplayZone();
  return (
    <FiguresTable
      label="A/B test variants"
      columns={COLUMNS}
      note={
        <p className="muted" data-winner={campaign.winnerVariant ?? ''} data-winner-note={campaign.winnerNote ?? ''}>
          {winnerInWords(campaign, zone)}
        </p>
      }
    >
      {campaign.variants.map((variant) => (
        <tr key={variant.variant} data-variant={variantLetter(variant.variant)}>
          <td>
            {variantLetter(variant.variant)}: {variant.title ?? campaign.title}
            {campaign.winnerVariant === variant.variant && !campaign.winnerNote && <span className="badge">winner</span>}
          </td>
          <td className="num">{formatNumber(variant.recipients)}</td>
          <td className="num">{formatNumber(variant.delivered)}</td>
          <td className="num">{formatNumber(variant.clicked)}</td>
          <td className="num">{variant.clickRate === null ? '—' : `${(variant.clickRate * 100).toFixed(1)}%`}</td>
        </tr>
      ))}
    </FiguresTable>
  );
}
