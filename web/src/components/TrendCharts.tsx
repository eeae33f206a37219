import { useId } from 'react';
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
}

/** Days grouped into points: one a day up to 31 days, one a week up to 92, else one per 30 days (ending today). */
export function periods(days: TrendDay[]): Period[] {
  const size = days.length <= 31 ? 1 : days.length <= 92 ? 7 : 30;
  const out: Period[] = [];
  for (let end = days.length; end > 0; end -= size) {
    const span = days.slice(Math.max(0, end - size), end);
    const [first, last] = [span[0]!.date ?? '', span[span.length - 1]!.date ?? ''];
    out.unshift({ label: size === 1 ? last : `${first} to ${last}`, days: span });
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

/** One line per series over the periods, and the table of the same numbers. */
export function LineChart({ title, periods: points, series }: { title: string; periods: Period[]; series: Series[] }) {
  const id = useId();
  const [width, height, pad] = [520, 180, 28];
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const x = (i: number) => pad + (points.length > 1 ? (i * (width - 2 * pad)) / (points.length - 1) : 0);
  const y = (v: number) => height - pad - (v / max) * (height - 2 * pad);
  return (
    <figure className="trend">
      <div className="trend-chart">
        <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={`${id}-caption`}>
          <line x1={pad} y1={height - pad} x2={width - pad} y2={height - pad} stroke="#555" />
          <text x={4} y={pad} fontSize="11" fill="#333">
            {max}
          </text>
          <text x={4} y={height - pad} fontSize="11" fill="#333">
            0
          </text>
          <text x={pad} y={height - 8} fontSize="11" fill="#333">
            {points[0]?.label.split(' to ')[0]}
          </text>
          <text x={width - pad} y={height - 8} fontSize="11" fill="#333" textAnchor="end">
            {points[points.length - 1]?.days.at(-1)?.date}
          </text>
          {series.map((s) => (
            <polyline
              key={s.name}
              fill="none"
              stroke={s.color}
              strokeWidth={2}
              points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')}
            >
              <title>{s.name}</title>
            </polyline>
          ))}
        </svg>
        <figcaption id={`${id}-caption`}>
          {title}:{' '}
          {series.map((s) => (
            <span key={s.name} className="legend">
              <span className="swatch" style={{ background: s.color }} aria-hidden="true" /> {s.name}
            </span>
          ))}
        </figcaption>
      </div>
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
              <tr key={p.label}>
                <th scope="row">{p.label}</th>
                {series.map((s) => (
                  <td key={s.name}>{s.values[i]}</td>
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
        series={SEVERITIES.map((sev) => ({
          name: sev,
          color: COLORS[sev],
          values: points.map((p) => last(p).open?.[sev] ?? 0),
        }))}
      />
      <LineChart
        title="New and fixed findings"
        periods={points}
        series={[
          { name: 'New', color: COLORS.New, values: points.map((p) => sum(p, (d) => total(d.new))) },
          { name: 'Fixed', color: COLORS.Fixed, values: points.map((p) => sum(p, (d) => total(d.fixed))) },
        ]}
      />
      <LineChart
        title="Environments scanned"
        periods={points}
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
