// The overview's charts, drawn by recharts: subscribers over time (the running total as an area on the left
// axis, each day's new subscribers as bars on their own right axis, so neither overflows the other's scale),
// the site's notifications per day, and the last campaigns' figures. Axes count in whole numbers.
import {
  Area,
  Bar,
  BarChart,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { Campaign, SiteStats } from '../../contract/owner-api.ts';
import { formatNumber } from './api.ts';

const AXIS = { fontSize: 12, fill: '#555' };
const tickNumber = (value: number) => formatNumber(value);
/** "2026-11-23" as "Nov 23": a calendar date of the owner's display zone (the provider counts days on its clock). */
const tickDay = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

export function SubscriberChart({ days }: { days: SiteStats['days'] }) {
  if (days.length === 0) return null;
  const first = days[0]!;
  const last = days[days.length - 1]!;
  const added = days.reduce((sum, day) => sum + day.new, 0);
  const label = `Subscribers from ${first.date} to ${last.date}: ${formatNumber(first.total)} to ${formatNumber(last.total)}, ${formatNumber(added)} new.`;
  return (
    <figure className="chart" role="img" aria-label={label} data-chart="subscribers">
      <ResponsiveContainer width="100%" height={240}>
        <ComposedChart data={days} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid stroke="#e5e5e5" vertical={false} />
          <XAxis dataKey="date" tickFormatter={tickDay} tick={AXIS} minTickGap={24} />
          <YAxis yAxisId="total" allowDecimals={false} tickFormatter={tickNumber} tick={AXIS} width={56} domain={[0, 'auto']} />
          <YAxis
            yAxisId="new"
            orientation="right"
            allowDecimals={false}
            tickFormatter={tickNumber}
            tick={AXIS}
            width={40}
            domain={[0, 'auto']}
          />
          <Tooltip formatter={(value) => formatNumber(Number(value))} labelFormatter={(date) => tickDay(String(date))} />
          <Legend />
          <Bar yAxisId="new" dataKey="new" name="New that day" fill="#86efac" maxBarSize={10} isAnimationActive={false} />
          <Area
            yAxisId="total"
            type="monotone"
            dataKey="total"
            name="All subscribers"
            stroke="#2563eb"
            strokeWidth={2}
            fill="#2563eb"
            fillOpacity={0.12}
            isAnimationActive={false}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** Said instead of a chart whose every value is zero. */
function NothingYet({ children, name }: { children: string; name: string }) {
  return (
    <p className="muted" data-empty={name}>
      {children}
    </p>
  );
}

export function NotificationChart({ days }: { days: SiteStats['notifications'] }) {
  if (days.length === 0) return null;
  if (days.every((day) => day.delivered + day.shown + day.clicked + day.conversions === 0))
    return <NothingYet name="notifications">No notification delivered in these days.</NothingYet>;
  const sum = (key: 'delivered' | 'shown' | 'clicked' | 'conversions') => formatNumber(days.reduce((total, day) => total + day[key], 0));
  const label =
    `Notifications from ${days[0]!.date} to ${days[days.length - 1]!.date}: ${sum('delivered')} delivered, ` +
    `${sum('shown')} shown, ${sum('clicked')} clicked, ${sum('conversions')} conversions.`;
  return (
    <figure className="chart" role="img" aria-label={label} data-chart="notifications">
      <ResponsiveContainer width="100%" height={240}>
        <LineChart data={days} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid stroke="#e5e5e5" vertical={false} />
          <XAxis dataKey="date" tickFormatter={tickDay} tick={AXIS} minTickGap={24} />
          <YAxis allowDecimals={false} tickFormatter={tickNumber} tick={AXIS} width={56} domain={[0, 'auto']} />
          <Tooltip formatter={(value) => formatNumber(Number(value))} labelFormatter={(date) => tickDay(String(date))} />
          <Legend />
          <Line isAnimationActive={false} type="monotone" dataKey="delivered" name="Delivered" stroke="#2563eb" dot={false} />
          <Line isAnimationActive={false} type="monotone" dataKey="shown" name="Shown" stroke="#7c3aed" dot={false} />
          <Line isAnimationActive={false} type="monotone" dataKey="clicked" name="Clicked" stroke="#16a34a" dot={false} />
          <Line isAnimationActive={false} type="monotone" dataKey="conversions" name="Conversions" stroke="#ea580c" dot={false} />
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}

export function CampaignChart({ campaigns }: { campaigns: Campaign[] }) {
  if (campaigns.length === 0) return null;
  if (campaigns.every((campaign) => campaign.delivered + campaign.shown + campaign.clicked + campaign.conversions === 0))
    return <NothingYet name="campaigns">Nothing delivered yet: the chart starts with the first delivery.</NothingYet>;
  // oldest first, so time runs left to right
  const data = [...campaigns].reverse().map((campaign) => ({
    name: campaign.title.length > 18 ? `${campaign.title.slice(0, 17)}…` : campaign.title,
    delivered: campaign.delivered,
    shown: campaign.shown,
    clicked: campaign.clicked,
    conversions: campaign.conversions,
  }));
  return (
    <figure className="chart" role="img" aria-label="Delivered, shown, clicked and converted, per campaign" data-chart="campaigns">
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
          <CartesianGrid stroke="#e5e5e5" vertical={false} />
          {/* every name that fits; on a narrow screen some are left out rather than drawn over each other */}
          <XAxis dataKey="name" tick={AXIS} interval="preserveStartEnd" minTickGap={6} />
          <YAxis allowDecimals={false} tickFormatter={tickNumber} tick={AXIS} width={56} domain={[0, 'auto']} />
          <Tooltip formatter={(value) => formatNumber(Number(value))} />
          <Legend />
          <Bar isAnimationActive={false} dataKey="delivered" name="Delivered" fill="#2563eb" />
          <Bar isAnimationActive={false} dataKey="shown" name="Shown" fill="#7c3aed" />
          <Bar isAnimationActive={false} dataKey="clicked" name="Clicked" fill="#16a34a" />
          <Bar isAnimationActive={false} dataKey="conversions" name="Conversions" fill="#ea580c" />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
