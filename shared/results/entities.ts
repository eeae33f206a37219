import { entityKind } from '../db/entity-write.ts';
import * as openIssueSummary from './projections/open-issue-summary.ts';

// The results' entity kinds with their projections (docs/DATA-MODEL.md, Projections; shared/db/entity-write.ts,
// EntityKind).

/**
 * An environment's finding records as its open issues' summary follows them: not an item of its own, derived into
 * the summary (a scan's publication, trends/entities.ts environmentPublication; a retest's fix,
 * findings/entities.ts retestFix).
 */
export const environmentOpenIssues = entityKind<
  openIssueSummary.EnvironmentFindings,
  { applicationId: string; environmentId: string }
>('environmentOpenIssues', { summary: openIssueSummary.project });
