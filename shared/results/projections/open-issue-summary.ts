import type { Projected } from '../../db/entity-write.ts';
import { openIssuesPut, openIssuesStale } from '../issue-summary.ts';
import { isOpenFinding, type SummaryFinding } from '../model.ts';

// An environment's open issues now (docs/DATA-MODEL.md, Findings report; docs/ISSUES.md, The findings report): a
// projection of its finding records (trends/entities.ts environmentOpenIssues). A write that holds every record of
// the environment (a scan's publication) writes the summary whole (issue-summary.ts openIssuesPut); one that changes
// whether some of them are open without reading the others (a retest's fix) marks it stale (openIssuesStale): the
// report then reads the environment's findings until its next publication.

/** Finding records of the environment, by hash: all of them (`complete`), or those the write changes. */
export interface EnvironmentFindings {
  findings: ReadonlyMap<string, SummaryFinding>;
  complete: boolean;
}

const isOpen = (f: SummaryFinding | undefined) => f !== undefined && isOpenFinding(f);

/**
 * The summary's Put from every record after the write (`after.complete`), or its stale mark when the write moves a
 * record in or out of the open ones without the others; none when the environment's records go or none moves.
 */
export function project(
  before: EnvironmentFindings | undefined,
  after: EnvironmentFindings | undefined,
  env: { applicationId: string; environmentId: string },
): Projected {
  if (!after) return {};
  if (after.complete) return { items: [openIssuesPut(env, after.findings.values())] };
  const hashes = new Set([...(before?.findings.keys() ?? []), ...after.findings.keys()]);
  const moves = [...hashes].some((hash) => isOpen(before?.findings.get(hash)) !== isOpen(after.findings.get(hash)));
  return moves ? { items: [openIssuesStale(env)] } : {};
}
