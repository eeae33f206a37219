import { describe, expect, it } from 'vitest';
import { DAY_MS, clockStart, slaClock } from '../../shared/governance/model.ts';
import { issueRepresentatives, type TriageStatus } from '../../shared/results/model.ts';
import { mostOverdueFirst } from '../../shared/scans/model.ts';
import {
  OVERDUE_LISTED,
  decodeHeads,
  decodeStarts,
  encodeHeads,
  encodeStarts,
  overdueDigestOf,
  overdueOfDigest,
  type DueDetection,
} from '../../shared/overview/model.ts';

// The overview's overdue digest (shared/overview/model.ts): built once from an environment's due detections, it gives
// the figures and the listed findings that the recomputation (issueRepresentatives over the overdue detections, with
// the due dates of the policy in force) gives, under any days and at any moment; and it survives its encoding.

const T0 = Date.UTC(2026, 0, 1);
const SEVERITIES = ['High', 'Medium', 'Low'];

/** A deterministic pseudo-random sequence (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (n: number) => n.toString(16).padStart(64, '0');

/** Detections of `issues` issues, some detected by several streams with other severities, starts often shared. */
function detections(seed: number, issues: number): DueDetection[] {
  const next = random(seed);
  const out: DueDetection[] = [];
  for (let i = 0; i < issues; i++) {
    const streams = next() < 0.2 ? 2 + Math.floor(next() * 2) : 1;
    for (let s = 0; s < streams; s++) {
      out.push({
        findingHash: next() < 0.05 && out.length ? out[out.length - 1].findingHash : hex(Math.floor(next() * 1e9)),
        issueId: `issue-${i}`,
        pluginId: `p${i % 7}`,
        severity: SEVERITIES[Math.floor(next() * 3)],
        requestMethod: 'GET',
        url: `https://t.test/${i}/${s}`,
        status: 'UNKNOWN',
        scanId: `scan-${s}`,
        // A few distinct starts (a scan's findings share theirs), over 200 days.
        start: T0 + Math.floor(next() * 8) * 25 * DAY_MS + (next() < 0.3 ? Math.floor(next() * 1000) : 0),
      });
    }
  }
  return out;
}

/** The recomputation's figures: each detection's due date under `days`, then issueRepresentatives of the overdue. */
function recomputed(found: DueDetection[], days: Record<string, number>, now: number) {
  const overdue = found
    .map((d) => {
      const dueDate = d.start + days[d.severity] * DAY_MS;
      return { ...d, dueDate, daysLeft: Math.floor((dueDate - now) / DAY_MS) };
    })
    .filter((d) => now > d.dueDate);
  const listed = issueRepresentatives(overdue, mostOverdueFirst);
  const bySeverity = { High: 0, Medium: 0, Low: 0 };
  for (const f of listed) bySeverity[f.severity as keyof typeof bySeverity]++;
  return {
    findingsWithDueDate: new Set(found.map((d) => d.issueId)).size,
    bySeverity,
    count: listed.length,
    top: listed.slice(0, OVERDUE_LISTED).map((f) => [f.findingHash, f.scanId, f.severity, f.dueDate, f.daysLeft]),
  };
}

/** The digest's figures, after its stored encoding. */
function ofDigest(found: DueDetection[], days: Record<string, number>, now: number) {
  const built = overdueDigestOf(found);
  const stored = {
    issues: built.issues,
    starts: {
      High: decodeStarts(encodeStarts(built.starts.High)),
      Medium: decodeStarts(encodeStarts(built.starts.Medium)),
      Low: decodeStarts(encodeStarts(built.starts.Low)),
    },
    heads: decodeHeads(encodeHeads(built.heads)),
  };
  const figures = overdueOfDigest(stored, days as never, now);
  return {
    findingsWithDueDate: figures.findingsWithDueDate,
    bySeverity: figures.bySeverity,
    count: figures.count,
    top: figures.overdue.slice(0, OVERDUE_LISTED).map((o) => {
      const detail = built.details[o.head]!;
      return [detail.findingHash, detail.scanId, o.severity, o.dueDate, o.daysLeft];
    }),
  };
}

describe('overdue digest', () => {
  it('gives the recomputation figures and listed findings under any days, at any moment', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const found = detections(seed, 5 + seed * 7);
      const next = random(seed * 31);
      for (let k = 0; k < 6; k++) {
        const days = {
          High: 1 + Math.floor(next() * 60),
          Medium: 1 + Math.floor(next() * 120),
          Low: 1 + Math.floor(next() * 200),
        };
        const now = T0 + Math.floor(next() * 400) * DAY_MS + Math.floor(next() * DAY_MS);
        expect(ofDigest(found, days, now), `seed ${seed}, ${JSON.stringify(days)}`).toEqual(
          recomputed(found, days, now),
        );
      }
    }
  });

  it('keeps a number per issue beyond the listed ones: 300 findings of one scan in about 300 bytes', () => {
    const found = detections(7, 300).map((d) => ({ ...d, start: T0 }));
    const digest = overdueDigestOf(found);
    expect(digest.heads.length).toBeLessThanOrEqual(3 * OVERDUE_LISTED + 2 * 300);
    const listed = digest.details.filter(Boolean).length;
    expect(listed).toBeGreaterThanOrEqual(OVERDUE_LISTED);
    const starts = Object.values(digest.starts).reduce((n, s) => n + encodeStarts(s).length, 0);
    expect(starts).toBeLessThan(320);
  });

  it('round-trips starts and heads, other hashes than SHA-256 hex too', () => {
    const starts = [0, 1, 127, 128, 16383, 16384, T0, T0, T0 + 1, 2 ** 52];
    expect(decodeStarts(encodeStarts(starts))).toEqual(starts);
    expect(decodeStarts(undefined)).toEqual([]);
    const heads = [
      { issue: 0, severity: 'Low' as const, start: T0, seq: 3, findingHash: hex(255) },
      { issue: 300, severity: 'High' as const, start: 2 ** 52, seq: 70000, findingHash: 'legacy-Hash' },
      { issue: 301, severity: 'Medium' as const, start: 0, seq: 0, findingHash: '' },
    ];
    expect(decodeHeads(encodeHeads(heads))).toEqual(heads);
  });
});

describe('clock start', () => {
  const day = (n: number) => T0 + n * DAY_MS;
  const history = (...changes: [number, TriageStatus, TriageStatus][]) =>
    changes.map(([d, oldResult, newResult]) => ({ timestamp: day(d), oldResult, newResult }));

  it('is the due date less the days, whatever the days; none while the clock stands still', () => {
    const reopened = history([5, 'UNKNOWN', 'RISK_ACCEPTED'], [15, 'RISK_ACCEPTED', 'UNKNOWN']);
    for (const days of [1, 30, 365])
      expect(slaClock(T0, days, reopened, day(40)).dueAt).toBe(clockStart(T0, reopened, day(40))! + days * DAY_MS);
    expect(clockStart(T0, reopened, day(40))).toBe(day(10));
    expect(clockStart(T0, reopened, day(10))).toBeUndefined();
    expect(clockStart(T0, history([5, 'UNKNOWN', 'FALSE_POSITIVE']), day(40))).toBeUndefined();
  });
});
