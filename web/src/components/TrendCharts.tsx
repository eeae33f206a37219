import { useId } from 'react';
import * as Recharts from 'recharts';
import { CHART_FRAME, xAxisLook, yAxisLook } from './chart-frame';
import type { Schemas } from '../api/client';

// The trends (docs/GOVERNANCE.md, Trends) as small SVG line charts, each with the same figures in a table beside it
// (a caption, column and row headers), which screen readers and tests read. Used by the overview and the report.

export type TrendDay = Schemas['hawk.TrendDay'];
type Severities = Schemas['hawk.TrendSeverities'];

const SEVERITIES = ['High', 'Medium', 'Low'] as const;
const COLORS = { High: '#b3261e', Medium: '#b35c00', Low: '#5b6b00', New: '#b3261e', Fixed: '#1e6b35' };
const total = (s: Severities | undefined) => (s?.High ?? 0) + (s?.Medium ?? 0) + (s?.Low ?? 0) + (s?.Info ?? 0);

/** A span of days (one chart point): open findings and coverage at its last day, events summed over it. */
export interface Period {
  label: string;
  days: TrendDay[];
  /** Before the first day with any figure (no scan yet): shown as no data rather than zeros. */
  empty: boolean;
}

/** Whether a day holds any figure: open, new or fixed findings, or scanned environments. */
const active = (d: TrendDay) => total(d.open) + total(d.new) + total(d.fixed) + (d.scannedWithin30Days ?? 0) > 0;

/** Days grouped into points: one a day up to 31 days, one a week up to 92, else one per 30 days (ending today). */
export function periods(days: TrendDay[]): Period[] {
  const size = days.length <= 31 ? 1 : days.length <= 92 ? 7 : 30;
  const out: Period[] = [];
  const firstActive = days.findIndex(active);
  for (let end = days.length; end > 0; end -= size) {
    const span = days.slice(Math.max(0, end - size), end);
    const [first, last] = [span[0]!.date ?? '', span[span.length - 1]!.date ?? ''];
    const empty = firstActive < 0 || end <= firstActive;
    out.unshift({ label: size === 1 ? last : `${first} to ${last}`, days: span, empty });
  }
  return out;
}

const last = (p: Period) => p.days[p.days.length - 1]!;
const sum = (p: Period, pick: (d: TrendDay) => number) => p.days.reduce((n, d) => n + pick(d), 0);

/** The period's sums, from its days (the same arithmetic as the service's summary, over any span). */
export function summarize(days: TrendDay[]) {
  const add = (pick: (d: TrendDay) => number) => days.reduce((n, d) => n + pick(d), 0);
  const fixes = add((d) => total(d.fixed));
  const due = add((d) => d.fixesWithDueDate ?? 0);
  const within = add((d) => d.fixedWithinSla ?? 0);
  const lastDay = days[days.length - 1];
  return {
    openNow: SEVERITIES.map((s) => [s, lastDay?.open?.[s] ?? 0] as const),
    new: add((d) => total(d.new)),
    fixed: fixes,
    reopened: add((d) => total(d.reopened)),
    meanDaysToFix: fixes ? add((d) => d.fixTimeMs ?? 0) / fixes / 86_400_000 : undefined,
    slaCompliance: due ? within / due : undefined,
    fixesWithDueDate: due,
    fixedWithinSla: within,
    scannedWithin7Days: lastDay?.scannedWithin7Days ?? 0,
    scannedWithin30Days: lastDay?.scannedWithin30Days ?? 0,
  };
}

interface Series {
  name: string;
  color: string;
  values: number[];
}

/** What a chart's axes say: the periods' unit (a day, a week, 30 days) and what the values count. */
export interface Axes {
  x: string;
  y: string;
}

/** The x axis's title for these periods (all of one length, as periods() makes them). */
export const periodAxis = (points: Period[]) => {
  const size = points.reduce((n, p) => Math.max(n, p.days.length), 1);
  return size === 1 ? 'Day (UTC)' : `${size}-day period ending (UTC)`;
};

/**
 * One line per series over the periods (Recharts: axes with titles, a tooltip with each value on hover and keyboard
 * focus), and the table of the same numbers, which screen readers and tests read. A period of days the trends hold
 * no record for (before the organization's first scan) is a gap in the lines and "no data" in the table, not zeros.
 */
export function LineChart({
  title,
  periods: points,
  series,
  axes,
}: {
  title: string;
  periods: Period[];
  series: Series[];
  axes: Axes;
}) {
  const id = useId();
  const quiet = points.filter((p) => p.empty).length; // the periods before the first figure (on paper: one line)
  const data = points.map((p, i) => ({
    period: p.days.at(-1)?.date ?? p.label,
    ...Object.fromEntries(series.map((s) => [s.name, p.empty ? null : s.values[i]])),
  }));
  return (
    <figure className="trend">
      <div className="trend-chart">
        <Recharts.LineChart
          data={data}
          {...CHART_FRAME}
          title={title}
          desc={`${title}: ${axes.y} by ${axes.x.toLowerCase()}; the same figures are in the table beside it.`}
          aria-labelledby={`${id}-caption`}
        >
          <Recharts.CartesianGrid stroke="#ddd" strokeDasharray="3 3" />
          <Recharts.XAxis dataKey="period" {...xAxisLook(axes.x)} />
          <Recharts.YAxis {...yAxisLook(axes.y, axes.y.length * 3)} />
          <Recharts.Tooltip />
          {series.map((s) => (
            <Recharts.Line
              key={s.name}
              type="monotone"
              dataKey={s.name}
              stroke={s.color}
              strokeWidth={2}
              dot={points.length <= 31}
              isAnimationActive={false}
            />
          ))}
        </Recharts.LineChart>
        <figcaption id={`${id}-caption`}>
          {title}:{' '}
          {series.map((s) => (
            <span key={s.name} className="legend">
              <span className="swatch" style={{ background: s.color }} aria-hidden="true" /> {s.name}
            </span>
          ))}
        </figcaption>
      </div>
      {quiet > 0 && (
        <p className="help print-only">
          No data before {points[quiet]?.label.split(' to ')[0] ?? 'today'}: no scan had reported yet.
        </p>
      )}
      {/* Scrolls when long: focusable, so keyboard users can scroll it too. */}
      <div className="trend-table" tabIndex={0} role="region" aria-label={`${title}, as a table`}>
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">Period</th>
              {series.map((s) => (
                <th scope="col" key={s.name}>
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {points.map((p, i) => (
              <tr key={p.label} className={p.empty ? 'no-data' : undefined}>
                <th scope="row">{p.label}</th>
                {series.map((s) => (
                  <td key={s.name}>{p.empty ? 'no data' : s.values[i]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

/** The period's summary and its three charts: open findings, new and fixed, coverage. */
export function TrendCharts({ days, scope }: { days: TrendDay[]; scope: string }) {
  const points = periods(days);
  const xAxis = periodAxis(points);
  const s = summarize(days);
  const percent = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v * 100)}%`);
  return (
    <>
      <table className="summary">
        <caption>Summary of {scope}</caption>
        <tbody>
          {s.openNow.map(([severity, n]) => (
            <tr key={severity}>
              <th scope="row">Open {severity} findings now</th>
              <td>{n}</td>
            </tr>
          ))}
          <tr>
            <th scope="row">New findings</th>
            <td>{s.new}</td>
          </tr>
          <tr>
            <th scope="row">Fixed findings</th>
            <td>{s.fixed}</td>
          </tr>
          <tr>
            <th scope="row">Reopened findings</th>
            <td>{s.reopened}</td>
          </tr>
          <tr>
            <th scope="row">Mean days to fix</th>
            <td>{s.meanDaysToFix === undefined ? '—' : s.meanDaysToFix.toFixed(1)}</td>
          </tr>
          <tr>
            <th scope="row">Fixed within SLA</th>
            <td>
              {percent(s.slaCompliance)} ({s.fixedWithinSla} of {s.fixesWithDueDate})
            </td>
          </tr>
          <tr>
            <th scope="row">Environments scanned within 7 days</th>
            <td>{s.scannedWithin7Days}</td>
          </tr>
          <tr>
            <th scope="row">Environments scanned within 30 days</th>
            <td>{s.scannedWithin30Days}</td>
          </tr>
        </tbody>
      </table>
      <LineChart
        title="Open findings by severity"
        periods={points}
        axes={{ x: xAxis, y: 'Open findings (at period end)' }}
        series={SEVERITIES.map((sev) => ({
          name: sev,
          color: COLORS[sev],
          values: points.map((p) => last(p).open?.[sev] ?? 0),
        }))}
      />
      <LineChart
        title="New and fixed findings"
        periods={points}
        axes={{ x: xAxis, y: 'Findings in the period' }}
        series={[
          { name: 'New', color: COLORS.New, values: points.map((p) => sum(p, (d) => total(d.new))) },
          { name: 'Fixed', color: COLORS.Fixed, values: points.map((p) => sum(p, (d) => total(d.fixed))) },
        ]}
      />
      <LineChart
        title="Environments scanned"
        periods={points}
        axes={{ x: xAxis, y: 'Environments' }}
        series={[
          {
            name: 'Within 7 days',
            color: '#1a5fb4',
            values: points.map((p) => last(p).scannedWithin7Days ?? 0),
          },
          {
            name: 'Within 30 days',
            color: '#613583',
            values: points.map((p) => last(p).scannedWithin30Days ?? 0),
          },
        ]}
      />
    </>
  );
}
