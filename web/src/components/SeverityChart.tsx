import * as Recharts from 'recharts';
import { CHART_FRAME, xAxisLook, yAxisLook } from './chart-frame';
import { SEVERITIES } from './ui';

export interface ScanPoint {
  label: string;
  counts: Record<string, number>;
}

const COLORS: Record<string, string> = { High: '#b3261e', Medium: '#b35c00', Low: '#5b6b00' };

/**
 * Findings per severity across scans (oldest first), as stacked bars (Recharts: axes with titles, each bar's values
 * on hover and keyboard focus), with the same numbers in a table.
 */
export function SeverityChart({ points }: { points: ScanPoint[] }) {
  const data = points.map((p) => ({
    scan: p.label,
    ...Object.fromEntries(SEVERITIES.map((s) => [s, p.counts[s] ?? 0])),
  }));
  return (
    <figure className="chart">
      <Recharts.BarChart
        data={data}
        {...CHART_FRAME}
        title="Findings per severity in the recent scans"
        aria-labelledby="chart-caption"
      >
        <Recharts.CartesianGrid stroke="#ddd" strokeDasharray="3 3" vertical={false} />
        <Recharts.XAxis dataKey="scan" {...xAxisLook('Scan (start time)')} />
        <Recharts.YAxis {...yAxisLook('Findings', 24)} />
        <Recharts.Tooltip />
        {SEVERITIES.map((severity) => (
          <Recharts.Bar
            key={severity}
            dataKey={severity}
            stackId="severity"
            fill={COLORS[severity]}
            maxBarSize={36}
            isAnimationActive={false}
          />
        ))}
      </Recharts.BarChart>
      <figcaption id="chart-caption">
        Findings per severity in the last {points.length} scans, oldest first:{' '}
        {SEVERITIES.map((s) => (
          <span key={s} className="legend">
            <span className="swatch" style={{ background: COLORS[s] }} aria-hidden="true" /> {s}
          </span>
        ))}
      </figcaption>
      <details>
        <summary>As a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Scan</th>
              {SEVERITIES.map((s) => (
                <th scope="col" key={s}>
                  {s}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {points.map((p, i) => (
              <tr key={i}>
                <th scope="row">{p.label}</th>
                {SEVERITIES.map((s) => (
                  <td key={s}>{p.counts[s] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
