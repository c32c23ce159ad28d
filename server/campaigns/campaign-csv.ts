// A campaign's results as CSV, written row by row (a stream): the totals, each A/B variant, each language and
// each browser, with the three rates, the revenue per currency (one column each, as the campaign page reports it:
// never added across currencies) and, last, what each rate means. Cells are safe to open in a spreadsheet
// (http/csv.ts).
import { csvLine as line } from '../http/csv.ts';
import type { Campaign } from '../../contract/owner-api.ts';
import type { CurrencyAmount } from '../../contract/shop-order.ts';
import {
  campaignRates,
  formatRate,
  RATE_DEFINITIONS,
  RATE_NAMES,
  type CampaignFigures,
  type CampaignRates,
} from '../../contract/campaign-report.ts';

const HEADER = ['section', 'name', 'recipients', 'sent', 'delivered', 'shown', 'clicked', 'delivery rate', 'shown rate', 'click rate'];

interface Figures {
  recipients: number;
  sent: number | null;
  delivered: number;
  shown: number | null;
  clicked: number;
  /** Per currency; undefined where it is not counted (languages, browsers): empty cells. */
  revenue?: CurrencyAmount[];
}

function row(section: string, name: string, figures: Figures, currencies: string[]): string {
  const rates: CampaignRates | null =
    figures.sent === null || figures.shown === null
      ? null
      : campaignRates({ sent: figures.sent, delivered: figures.delivered, shown: figures.shown, clicked: figures.clicked });
  return line([
    section,
    name,
    figures.recipients,
    figures.sent,
    figures.delivered,
    figures.shown,
    figures.clicked,
    rates ? formatRate(rates.deliveryRate) : null,
    rates ? formatRate(rates.shownRate) : null,
    rates ? formatRate(rates.clickRate) : null,
    ...currencies.map((currency) => (figures.revenue ? (figures.revenue.find((entry) => entry.currency === currency)?.amount ?? 0) : null)),
  ]);
}

const variantLetter = (variant: number) => String.fromCharCode(65 + variant);

/** The CSV's lines, one at a time. */
export function* campaignCsv(campaign: Campaign, figures: CampaignFigures): Generator<string> {
  // a column per currency the campaign or a variant earned in, in code order; none for a campaign without revenue
  const currencies = [
    ...new Set([campaign, ...campaign.variants].flatMap((entry) => entry.revenue.map((amount) => amount.currency))),
  ].sort();
  const blank = currencies.map(() => null);
  yield line([...HEADER, ...currencies.map((currency) => `revenue ${currency}`)]);
  yield row('total', campaign.title, campaign, currencies);
  for (const variant of figures.byVariant) {
    const stored = campaign.variants.find((entry) => String(entry.variant) === variant.key);
    const name = `${variantLetter(Number(variant.key))}: ${stored?.title ?? campaign.title}`;
    yield row('variant', name, { ...variant, revenue: stored?.revenue ?? [] }, currencies);
  }
  for (const language of campaign.byLanguage ?? []) {
    yield row('language', language.language, { ...language, sent: null, shown: null }, currencies);
  }
  for (const browser of figures.byBrowser) yield row('browser', browser.key, browser, currencies);
  // the figures above are folded and stay; rows per subscriber are not kept after the reporting window
  const pruned = campaign.prunedAfterDays;
  if (pruned !== null && pruned !== undefined) {
    yield line(['note', `details pruned after ${pruned} days`, null, null, null, null, null, null, null, null, ...blank]);
  }
  for (const rate of Object.keys(RATE_DEFINITIONS) as (keyof CampaignRates)[]) {
    yield line(['definition', RATE_NAMES[rate], null, null, null, null, null, null, null, RATE_DEFINITIONS[rate], ...blank]);
  }
}
