import { config } from '../config.ts';
import { keys } from '../db/keys.ts';
import { getItem } from '../db/query.ts';
import { failedConditions } from '../db/items.ts';
import { transactWrite } from '../db/transactions.ts';
import { withConsistentReads } from '../db/consistent-reads.ts';
import type { ApplicationRecord } from '../applications/model.ts';

// The names of the applications the overview lists (docs/GOVERNANCE.md, The overview) from its copy of them: one
// small item of the organization (keys.overviewNames) with the names of the applications the last requests listed,
// built at the version that every rename or end of one of its applications moves, in that write's transaction
// (applications/projections/overview-names.ts). A copy that is current (built at the version it carries) answers
// for the applications it names; the others (all of them when it is not current) are read from their records,
// strongly consistent, and the copy written back conditioned on the version read (a rename or delete since fails
// the write: the next request reads again), so a name is always its application's own. One item in the request's
// first round trip (overview.ts overviewReads) instead of a BatchGetItem of whole applications (half a unit each).

/** The copy's names above this size (about a half unit's 4 KB with the keys) are left out: the listed ones are kept. */
const KEPT_BYTES = 3_000;

interface StoredNames {
  version?: number;
  built?: number;
  names?: Record<string, string>;
}

/** The size a name takes in the copy (its id and name, with the map's overhead). */
const sizeOf = (id: string, name: string) => id.length + Buffer.byteLength(name) + 3;

/** The live applications among some ids (applications/application-repository.ts getApplications). */
type ApplicationsRead = (
  appIds: string[],
) => Promise<Pick<ApplicationRecord, 'applicationId' | 'organizationId' | 'name'>[]>;

/**
 * The names of the live applications of `orgId` among `appIds` (an id without one is left out: unknown, of another
 * organization, or its delete has started), from the organization's copy; those it lacks are read (`read`) and
 * written to it.
 */
export async function applicationNames(
  orgId: string,
  appIds: string[],
  read: ApplicationsRead,
): Promise<Map<string, string>> {
  const wanted = [...new Set(appIds)];
  const stored = (await getItem(keys.overviewNames(orgId))) as StoredNames | undefined;
  const version = stored?.version;
  const copy = stored?.built !== undefined && stored.built === (version ?? 0) ? (stored.names ?? {}) : {};
  const missing = wanted.filter((id) => !Object.hasOwn(copy, id));
  const names = new Map(wanted.filter((id) => !missing.includes(id)).map((id) => [id, copy[id]!]));
  if (missing.length === 0) return names;
  const found = (await withConsistentReads(() => read(missing))).filter((app) => app.organizationId === orgId);
  for (const app of found) names.set(app.applicationId, app.name);
  if (found.length > 0) await storeNames(orgId, names, copy, version);
  return names;
}

/**
 * Writes the copy: `listed` (the request's names) and as many of the copy's others as fit KEPT_BYTES, built at
 * `version` (the one read; absent: none yet), if it is still the item's version (else leaves it).
 */
async function storeNames(
  orgId: string,
  listed: Map<string, string>,
  copy: Record<string, string>,
  version: number | undefined,
) {
  const names: Record<string, string> = Object.fromEntries(listed);
  let size = [...listed].reduce((n, [id, name]) => n + sizeOf(id, name), 0);
  for (const [id, name] of Object.entries(copy)) {
    if (Object.hasOwn(names, id)) continue;
    size += sizeOf(id, name);
    if (size > KEPT_BYTES) break;
    names[id] = name;
  }
  try {
    await transactWrite([
      {
        Update: {
          TableName: config.tableName,
          Key: keys.overviewNames(orgId),
          UpdateExpression: 'SET entity = :entity, built = :built, #names = :names',
          ConditionExpression: version === undefined ? 'attribute_not_exists(version)' : 'version = :version',
          ExpressionAttributeNames: { '#names': 'names' },
          ExpressionAttributeValues: {
            ':entity': 'overviewNames',
            ':built': version ?? 0,
            ':names': names,
            ...(version === undefined ? {} : { ':version': version }),
          },
        },
      },
    ]);
  } catch (error) {
    if (failedConditions(error).length === 0) throw error;
  }
}
