import {
  campaignRates,
  formatRate,
  RATE_DEFINITIONS,
  RATE_NAMES,
  type CampaignRates,
  type RateInputs,
} from '../../../contract/campaign-report.ts';

const RATES = Object.keys(RATE_NAMES) as (keyof CampaignRates)[];

/** A rate's column heading: its name, with its definition on hover and for screen readers. */
export function RateHeading({ rate }: { rate: keyof CampaignRates }) {
  return (
    <abbr title={RATE_DEFINITIONS[rate]} data-rate-heading={rate}>
      {RATE_NAMES[rate]}
    </abbr>
  );
}

/** The three rates' cells of a row of figures. */
export function RateCells({ figures }: { figures: RateInputs }) {
  const rates = campaignRates(figures);
  return (
    <>
      {RATES.map((rate) => (
        <td key={rate} className="num" data-rate={rate} data-value={rates[rate] ?? ''}>
          {formatRate(rates[rate])}
        </td>
      ))}
    </>
  );
}

export const RATE_COLUMNS = RATES.map((rate) => ({ heading: <RateHeading rate={rate} />, numeric: true }));

/** What each rate means, written out once per screen. */
export function RateLegend() {
  return (
    <dl className="rate-legend" aria-label="What the rates mean">
      {RATES.map((rate) => (
        <div key={rate}>
          <dt>{RATE_NAMES[rate]}</dt>
          <dd>{RATE_DEFINITIONS[rate]}</dd>
        </div>
      ))}
    </dl>
  );
}
