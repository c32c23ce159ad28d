// Subscribers over time: a hand-written SVG area chart of the running total, with the new subscribers of
// each day as bars along the bottom.
import type { SiteStats } from '../../contract/owner-api.ts';
import { formatNumber } from './api.ts';

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { top: 16, right: 16, bottom: 28, left: 56 };

export function SubscriberChart({ days }: { days: SiteStats['days'] }) {
  if (days.length === 0) return null;
  const innerWidth = WIDTH - PAD.left - PAD.right;
  const innerHeight = HEIGHT - PAD.top - PAD.bottom;
  const max = Math.max(1, ...days.map((day) => day.total));
  const maxNew = Math.max(1, ...days.map((day) => day.new));
  const step = days.length > 1 ? innerWidth / (days.length - 1) : 0;
  const x = (index: number) => PAD.left + index * step;
  const y = (value: number) => PAD.top + innerHeight - (value / max) * innerHeight;
  const line = days.map((day, index) => `${index === 0 ? 'M' : 'L'}${x(index).toFixed(1)},${y(day.total).toFixed(1)}`).join(' ');
  const area = `${line} L${x(days.length - 1).toFixed(1)},${PAD.top + innerHeight} L${PAD.left},${PAD.top + innerHeight} Z`;
  const barWidth = Math.max(2, Math.min(14, step * 0.6));
  const first = days[0]!;
  const last = days[days.length - 1]!;
  const added = days.reduce((sum, day) => sum + day.new, 0);
  const label = `Subscribers from ${first.date} to ${last.date}: ${formatNumber(first.total)} to ${formatNumber(last.total)}, ${formatNumber(added)} new.`;

  return (
    <svg className="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label}>
      <title>{label}</title>
      {[0, 0.5, 1].map((fraction) => (
        <g key={fraction}>
          <line className="grid" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(max * fraction)} y2={y(max * fraction)} />
          <text className="axis" x={PAD.left - 8} y={y(max * fraction) + 4} textAnchor="end">
            {formatNumber(Math.round(max * fraction))}
          </text>
        </g>
      ))}
      {days.map((day, index) => (
        <rect
          key={day.date}
          className="bar"
          x={x(index) - barWidth / 2}
          width={barWidth}
          y={PAD.top + innerHeight - (day.new / maxNew) * (innerHeight * 0.3)}
          height={(day.new / maxNew) * (innerHeight * 0.3)}
        >
          <title>{`${day.date}: ${formatNumber(day.new)} new, ${formatNumber(day.total)} in all`}</title>
        </rect>
      ))}
      <path className="area" d={area} />
      <path className="line" d={line} />
      <text className="axis" x={PAD.left} y={HEIGHT - 8}>
        {first.date}
      </text>
      <text className="axis" x={WIDTH - PAD.right} y={HEIGHT - 8} textAnchor="end">
        {last.date}
      </text>
    </svg>
  );
}
