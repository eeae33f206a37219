import type { Projected } from '../../db/entity-write.ts';
import { keys } from '../../db/keys.ts';
import { isRiskSeverity, type RiskSeverity, type Severity } from '../../input/severities.ts';
import type { EnvironmentStreams } from '../../applications/model.ts';
import {
  type FindingRecord,
  type ScanRecord,
  type TriageRule,
  isUntriaged,
  type TriageStatus,
  streamHeadedBy,
} from '../../results/model.ts';

// A finding's place in the figures of its last scan (docs/DATA-MODEL.md, Findings and Tool streams; Projections):
// a projection of the finding's triage rule. While that scan is the latest of its stream, ended, not being deleted
// and counting the finding's plugin, its URIs in the scan (`lastScanUris`) count under the rule's status in the
// scan's statistics (byStatus by severity, byPluginStatus), and, untriaged (UNKNOWN, ADD_COMMENT) and of a risk
// severity, in its stream's untriaged figures in the environment. A change of the status moves them: the scan's
// statistics as counters of the scan's item (project), the stream's figures as the environment's streams after the
// write (untriagedStreams), which the environment's own write commits.

/** The fields of a triage rule the figures follow (no rule: UNKNOWN). */
type RuleStatus = Pick<TriageRule, 'status'>;

/** The finding the rule is for, and the scan whose figures count it (undefined: none does; see above). */
export interface TriageFiguresContext {
  finding: Pick<FindingRecord, 'pluginId' | 'severity' | 'lastScanUris'>;
  scan: Pick<ScanRecord, 'applicationId' | 'environmentId' | 'scanId'> | undefined;
}

const statusOf = (rule: RuleStatus | undefined): TriageStatus => rule?.status ?? 'UNKNOWN';

/**
 * What the rule's change from `before` to `after` adds to the scan's statistics: the finding's URIs out of the old
 * status and into the new one, conditioned on the scan still counting the plugin and not being deleted (none when
 * the status stays or no scan counts the finding). Netted with the other findings' of the write, one Update per scan.
 */
export function project(
  before: RuleStatus | undefined,
  after: RuleStatus | undefined,
  context: TriageFiguresContext,
): Projected {
  const from = statusOf(before);
  const to = statusOf(after);
  const { finding, scan } = context;
  if (!scan || from === to || finding.lastScanUris === 0) return {};
  const count = finding.lastScanUris;
  return {
    counters: [
      {
        key: keys.scanRecord(scan.applicationId, scan.environmentId, scan.scanId),
        entity: 'scan',
        add: {},
        addAt: [
          { path: ['stats', 'byStatus', from, finding.severity], delta: -count },
          { path: ['stats', 'byStatus', to, finding.severity], delta: count },
          { path: ['stats', 'byPluginStatus', finding.pluginId, from], delta: -count },
          { path: ['stats', 'byPluginStatus', finding.pluginId, to], delta: count },
        ],
        requires: [['stats', 'byPluginStatus', finding.pluginId]],
        condition: { expression: 'attribute_not_exists(deleting)' },
      },
    ],
  };
}

/**
 * A finding as its stream's untriaged figures count it, before or after a write: the scan whose figures count it
 * (TriageFiguresContext.scan; undefined: none does, e.g. once a retest fixed it), its severity, its URIs in that
 * scan and its triage status (no rule: UNKNOWN).
 */
export interface UntriagedPlace {
  scanId: string | undefined;
  severity: Severity;
  lastScanUris: number;
  status: TriageStatus;
}

/** What a finding adds to the untriaged figures of its scan's stream: untriaged (UNKNOWN, ADD_COMMENT), risk severity. */
const counted = (place: UntriagedPlace | undefined) =>
  place?.scanId !== undefined && isRiskSeverity(place.severity) && isUntriaged(place.status) ? place.lastScanUris : 0;

/**
 * The environment's streams (`streams`, as read) after a write of its findings (by hash) from `before` to `after`:
 * each finding's URIs out of the untriaged figures of the stream its scan heads before, into those of the stream its
 * scan heads after (none: a scan no longer any stream's latest counts in no stream's figures). Undefined when no
 * figure moves, so that the environment is not written.
 */
export function untriagedStreams(
  before: ReadonlyMap<string, UntriagedPlace>,
  after: ReadonlyMap<string, UntriagedPlace>,
  streams: EnvironmentStreams,
): EnvironmentStreams | undefined {
  const moves = new Map<string, Partial<Record<RiskSeverity, number>>>();
  const move = (place: UntriagedPlace | undefined, sign: 1 | -1) => {
    const count = counted(place);
    const stream = count === 0 ? undefined : streamHeadedBy(streams, place!.scanId!);
    if (stream === undefined) return;
    const deltas = moves.get(stream) ?? {};
    const severity = place!.severity as RiskSeverity;
    deltas[severity] = (deltas[severity] ?? 0) + sign * count;
    moves.set(stream, deltas);
  };
  for (const hash of new Set([...before.keys(), ...after.keys()])) {
    move(before.get(hash), -1);
    move(after.get(hash), 1);
  }
  const next: EnvironmentStreams = { ...streams };
  let moved = false;
  for (const [stream, deltas] of moves) {
    const changed = (Object.entries(deltas) as [RiskSeverity, number][]).filter(([, delta]) => delta !== 0);
    if (changed.length === 0) continue;
    const head = next[stream]!;
    next[stream] = { ...head, ...Object.fromEntries(changed.map(([s, delta]) => [s, head[s] + delta])) };
    moved = true;
  }
  return moved ? next : undefined;
}
