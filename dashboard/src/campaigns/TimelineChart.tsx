import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { CampaignFigures } from '../../../contract/campaign-report.ts';
import { formatNumber } from '../api.ts';
import { formatInstant, useDisplayZone } from '../clock/index.ts';

const AXIS = { fontSize: 12, fill: '#555' };

/**
 * A campaign's deliveries, shown and clicked reports per hour (or day) on the owner's clock; before anything
 * was delivered or reported, a sentence instead of a chart of zeros.
 */
export function TimelineChart({ figures }: { figures: CampaignFigures }) {
  const zone = useDisplayZone();
  const { timeline, step } = figures;
  if (timeline.every((point) => point.delivered + point.shown + point.clicked === 0)) {
    return (
      <p className="muted" data-empty="timeline">
        Nothing delivered or reported yet: the chart starts with the first delivery.
      </p>
    );
  }
  // "2026-11-26 14:00 GMT+1": the hour's time, or the day's date
  const tick = (at: string) => {
    const text = formatInstant(at, zone);
    return step === 'hour' ? text.slice(11, 16) : text.slice(5, 10);
  };
  const sum = (key: 'delivered' | 'shown' | 'clicked') => formatNumber(timeline.reduce((total, point) => total + point[key], 0));
  const label = `By ${step}: ${sum('delivered')} delivered, ${sum('shown')} shown, ${sum('clicked')} clicked.`;
  return (
    <figure className="chart" role="img" aria-label={label} data-chart="campaign-timeline">
      <ResponsiveContainer width="100%" height={220}>
        <LineChart data={timeline} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#e5e5e5" vertical={false} />
          <XAxis dataKey="at" tickFormatter={tick} tick={AXIS} minTickGap={24} />
          <YAxis allowDecimals={false} tickFormatter={(value: number) => formatNumber(value)} tick={AXIS} width={44} domain={[0, 'auto']} />
          <Tooltip formatter={(value) => formatNumber(Number(value))} labelFormatter={(at) => formatInstant(String(at), zone)} />
          <Legend />
          <Line isAnimationActive={false} type="monotone" dataKey="delivered" name="Delivered" stroke="#2563eb" dot={false} />
          <Line isAnimationActive={false} type="monotone" dataKey="shown" name="Shown" stroke="#7c3aed" dot={false} />
          <Line isAnimationActive={false} type="monotone" dataKey="clicked" name="Clicked" stroke="#16a34a" dot={false} />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
