import { entityKind } from '../db/entity-write.ts';
import * as environmentTrendFigures from './projections/environment-trend-figures.ts';
import * as applicationTrendFigures from './projections/application-trend-figures.ts';

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
