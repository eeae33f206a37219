import { SEVERITIES } from './ui';

export interface ScanPoint {
  label: string;
  counts: Record<string, number>;
}

const COLORS: Record<string, string> = { High: '#b3261e', Medium: '#b35c00', Low: '#5b6b00' };

/** Findings per severity across scans (oldest first), as stacked bars, with the same numbers in a table. */
export function SeverityChart({ points }: { points: ScanPoint[] }) {
  const totals = points.map((p) => SEVERITIES.reduce((n, s) => n + (p.counts[s] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const barWidth = 28;
  const gap = 12;
  const height = 140;
  const width = Math.max(points.length * (barWidth + gap) + gap, 120);
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${width} ${height + 4}`}
        width={width}
        height={height + 4}
        role="img"
        aria-labelledby="chart-caption"
      >
        {points.map((point, i) => {
          let y = height;
          return (
            <g key={i} transform={`translate(${gap + i * (barWidth + gap)},0)`}>
              <title>{`${point.label}: ${SEVERITIES.map((s) => `${s} ${point.counts[s] ?? 0}`).join(', ')}`}</title>
              {SEVERITIES.map((severity) => {
                const h = ((point.counts[severity] ?? 0) / max) * (height - 4);
                y -= h;
                return h > 0 ? (
                  <rect key={severity} x={0} y={y} width={barWidth} height={h} fill={COLORS[severity]} />
                ) : null;
              })}
              <rect x={0} y={height} width={barWidth} height={2} fill="#555" />
            </g>
          );
        })}
      </svg>
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
