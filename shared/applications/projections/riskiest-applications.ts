import { isDeepStrictEqual } from 'node:util';
import { config } from '../../config.ts';
import { keys } from '../../db/keys.ts';
import type { Projected } from '../../db/entity-write.ts';
import type { TransactItem } from '../../db/transactions.ts';
import { entryOf, riskRank, type ApplicationRecord, type RiskiestEntry } from '../model.ts';

// The overview's riskiest applications (docs/GOVERNANCE.md, The overview; keys.riskiestApplication): a ranked
// projection of the application's record. Each live application with untriaged findings in its environments' last
// scans has one entry in its organization's partition, sorted by its rank: its open issues (High, then Medium, then
// Low), then its untriaged findings (High, Medium, Low, total), then its id, so that a Query in descending order
// reads the riskiest first. The application's write moves it: a change of its figures, name or owner replaces the
// entry (the old rank's deleted, the new one put), its delete removes it.

export const RISKIEST_ENTITY = 'riskiestApplication';

/** The change of the entry from `before` to `after`: the old rank's deleted when it moves or goes, the new one put. */
export function project(before: ApplicationRecord | undefined, after: ApplicationRecord | undefined): Projected {
  const [was, is] = [entryOf(before), entryOf(after)];
  if (isDeepStrictEqual(was, is)) return {};
  const items: TransactItem[] = [];
  const keyOf = (entry: RiskiestEntry) => keys.riskiestApplication(entry.organizationId, riskRank(entry));
  if (was && (!is || keyOf(was).sk !== keyOf(is).sk))
    items.push({ Delete: { TableName: config.tableName, Key: keyOf(was) } });
  if (is) items.push({ Put: { TableName: config.tableName, Item: { ...keyOf(is), entity: RISKIEST_ENTITY, ...is } } });
  return { items };
}
