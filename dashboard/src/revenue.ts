// Revenue as the dashboard shows it (a campaign's, a variant's, an automation's): each currency's sum in that
// currency's own format, never added across currencies; "—" when there is none.
import type { CurrencyAmount } from '../../contract/shop-order.ts';

export function formatRevenue(revenue: CurrencyAmount[] | undefined): string {
  if (!revenue || revenue.length === 0) return '—';
  return revenue
    .map(({ currency, amount }) => {
      try {
        return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
      } catch {
        return `${amount.toFixed(2)} ${currency}`;
      }
    })
    .join(' · ');
}
