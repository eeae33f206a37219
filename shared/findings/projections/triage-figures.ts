import type { Projected } from '../../db/entity-write.ts';
import { keys } from '../../db/keys.ts';
import { isRiskSeverity, type RiskSeverity } from '../../input/severities.ts';
import type { FindingRecord, ScanRecord, TriageRule } from '../../results/model.ts';
import { isUntriaged, type TriageStatus } from '../../results/statuses.ts';

// A finding's place in the figures of its last scan (docs/DATA-MODEL.md, Findings and Tool streams; Projections):
// a projection of the finding's triage rule. While that scan is the latest of its stream, ended, not being deleted
// and counting the finding's plugin, its URIs in the scan (`lastScanUris`) count under the rule's status in the
// scan's statistics (byStatus by severity, byPluginStatus), and, untriaged (UNKNOWN, ADD_COMMENT) and of a risk
// severity, in its stream's untriaged figures in the environment. A change of the status moves them.

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
 * What the rule's change adds to the untriaged figures of the scan's stream, by severity (Info findings are not in
 * them: RISK_SEVERITIES); empty when the finding stays untriaged or not, or no scan counts it.
 */
export function untriaged(
  before: RuleStatus | undefined,
  after: RuleStatus | undefined,
  context: TriageFiguresContext,
): Partial<Record<RiskSeverity, number>> {
  const { finding, scan } = context;
  if (!scan || !isRiskSeverity(finding.severity)) return {};
  const delta = (isUntriaged(statusOf(after)) ? 1 : 0) - (isUntriaged(statusOf(before)) ? 1 : 0);
  return delta === 0 || finding.lastScanUris === 0 ? {} : { [finding.severity]: delta * finding.lastScanUris };
}
