import { entityKind, projectionOf } from '../db/entity-write.ts';
import { environmentOverdue } from '../governance/entities.ts';
import type { OverdueInputs } from '../governance/model.ts';
import type { FindingRecord } from '../results/model.ts';
import * as openIssueSummary from '../results/projections/open-issue-summary.ts';
import * as environmentTrendFigures from './projections/environment-trend-figures.ts';
import * as applicationTrendFigures from './projections/application-trend-figures.ts';
import * as sharedIssues from './projections/shared-issues.ts';

// The trends' entity kinds with their projections (docs/DATA-MODEL.md, Trends and Projections;
// shared/db/entity-write.ts, EntityKind): neither is an item of its own; each is what the trends count of an
// environment or an application, derived into the day figures and totals.

/** What the trends count of an environment (its findings and rules, its total's version and latest scan day). */
export const environmentTrends = entityKind<
  environmentTrendFigures.EnvironmentTrends,
  environmentTrendFigures.TrendContext
>('environmentTrends', { figures: environmentTrendFigures.project });

/** What the trends count of an application (its total and its environments'): its delete's figures. */
export const applicationTrends = entityKind<
  applicationTrendFigures.ApplicationTrends,
  { organizationId: string; applicationId: string; now: number }
>('applicationTrends', { figures: applicationTrendFigures.project });

/**
 * An environment's finding records as its open issues' summary follows them (results/issue-summary.ts): not an item
 * of its own, derived into the summary by a scan's publication (environmentPublication below) and a retest's fix
 * (findings/entities.ts retestFix).
 */
export const environmentOpenIssues = entityKind<
  openIssueSummary.EnvironmentFindings,
  { applicationId: string; environmentId: string }
>('environmentOpenIssues', { summary: openIssueSummary.project });

/**
 * An environment's findings as a scan's publication writes them (trends/writes.ts publicationTrend): not an item of
 * its own, derived into the trend figures (what the trends count of it), the overdue check's entry when an episode
 * starts (its findings as the check follows them: before, the records as read; after, the scan's), its open
 * issues' summary and its shared issues (both from every finding record after it).
 */
export interface EnvironmentPublication {
  trends: environmentTrendFigures.EnvironmentTrends;
  overdue: OverdueInputs;
  /** Every finding record of the environment, by hash. */
  findings: ReadonlyMap<string, FindingRecord>;
}

/**
 * A scan's publication in its environment: its trend figures, the overdue check's entry, its open issues' summary,
 * its shared issues.
 */
export const environmentPublication = entityKind<EnvironmentPublication, environmentTrendFigures.TrendContext>(
  'environmentPublication',
  {
    trends: (before, after, context) => projectionOf(environmentTrends, before?.trends, after?.trends, context),
    overdue: (before, after, { env, now }) =>
      projectionOf(environmentOverdue, before?.overdue, after?.overdue, { env, now }),
    openIssues: (before, after, { env }) =>
      projectionOf(
        environmentOpenIssues,
        before && { findings: before.findings, complete: true },
        after && { findings: after.findings, complete: true },
        env,
      ),
    sharedIssues: (before, after, { env }) => sharedIssues.project(before?.findings, after?.findings, env),
  },
);
