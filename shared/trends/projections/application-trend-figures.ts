import { keys } from '../../db/keys.ts';
import { config } from '../../config.ts';
import type { Projected } from '../../db/entity-write.ts';
import type { TransactItem } from '../../db/transactions.ts';
import { TrendChange, coverageRemoval, dayOf, type TrendField, type TrendTotal } from '../model.ts';
import { appScope, orgScope, scopeCounters } from './environment-trend-figures.ts';

// An application's trend figures when it leaves (docs/GOVERNANCE.md, Trends; docs/DATA-MODEL.md, Projections): its
// environments' projections move its figures while it lives; its delete takes its open findings and its live
// environments' coverage out of the organization's figures and marks its total deleted, so that no later write of
// its environments adds to the organization.

/** What the trends count of an application: its total as read and its environments' totals. */
export interface ApplicationTrends {
  total: TrendTotal;
  environments: Pick<TrendTotal, 'scannedDay' | 'deleted'>[];
}

/**
 * The change from `before` to `after` (undefined: the application leaves, at `now`): the organization's figures
 * less what it counts, its total marked deleted, conditioned on the total's `seq` read (no write of its
 * environments since). Nothing while it lives.
 */
export function project(
  before: ApplicationTrends | undefined,
  after: ApplicationTrends | undefined,
  context: { organizationId: string; applicationId: string; now: number },
): Projected {
  if (after || !before) return {};
  const day = dayOf(context.now);
  const change = new TrendChange();
  for (const [field, value] of Object.entries(before.total) as [TrendField, unknown][])
    if (field.startsWith('open') && typeof value === 'number') change.add(day, field, -value);
  for (const env of before.environments) if (!env.deleted) coverageRemoval(change, env.scannedDay, day);
  const seq =
    before.total.seq === undefined
      ? { condition: 'attribute_not_exists(seq)', values: {} }
      : { condition: 'seq = :seq', values: { ':seq': before.total.seq } };
  const mark: TransactItem = {
    Update: {
      TableName: config.tableName,
      Key: keys.trendTotal(appScope(context)),
      UpdateExpression: 'SET entity = :entity, deleted = :true',
      ConditionExpression: `${seq.condition} AND attribute_not_exists(deleted)`,
      ExpressionAttributeValues: { ':entity': 'trendTotal', ':true': true, ...seq.values },
    },
  };
  return { items: [mark], counters: change.empty ? [] : scopeCounters(orgScope(context.organizationId), change) };
}
