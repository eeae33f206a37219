import { keys } from '../../db/keys.ts';
import { config } from '../../config.ts';
import { named } from '../../db/items.ts';
import { putNewItem, type TransactItem } from '../../db/transactions.ts';
import type { Projected } from '../../db/entity-write.ts';
import type { EnvironmentRecord } from '../model.ts';

// The environment's name claim (docs/DATA-MODEL.md, Projections): names are unique per application, case-
// insensitively. A live environment holds the claim item of its lowercased name; a write that takes a claimed name
// fails at `nameTaken`.

/** The claim item of a live environment (none once its delete has started). */
export const claim = (env: EnvironmentRecord | undefined) =>
  env && !env.deleting
    ? {
        ...keys.environmentName(env.applicationId, env.name),
        entity: 'environmentName',
        environmentId: env.environmentId,
      }
    : undefined;

/** The change of the claim from `before` to `after`: nothing while the lowercased name stays. */
export function project(before: EnvironmentRecord | undefined, after: EnvironmentRecord | undefined): Projected {
  const [was, is] = [claim(before), claim(after)];
  if (was?.sk === is?.sk) return {};
  const items: TransactItem[] = [];
  if (was) items.push({ Delete: { TableName: config.tableName, Key: { pk: was.pk, sk: was.sk } } });
  if (is) items.push(named('nameTaken', putNewItem(is)));
  return { items };
}
