import { keys } from '../db/keys.ts';
import { batchGet } from '../db/query.ts';
import { withConsistentReads } from '../db/consistent-reads.ts';
import { config } from '../config.ts';
import { failedConditions } from '../db/items.ts';
import { transactWrite } from '../db/transactions.ts';
import type { ListEntry } from '../applications/model.ts';
import { getEnvironmentsByKeys } from '../applications/environment-repository.ts';
import { overdueOfCurrentScans } from '../scans/scan-sla.ts';
import { slaDaysResolver } from '../governance/sla-days.ts';
import {
  DUE_SEVERITIES,
  OVERDUE_LISTED,
  type DigestDetail,
  type DigestOverdue,
  type OverdueDigest,
  decodeHeads,
  decodeStarts,
  encodeHeads,
  encodeStarts,
  overdueDigestOf,
  overdueOfDigest,
} from './model.ts';

// The overview's overdue findings from each environment's overdue digest (docs/GOVERNANCE.md, The overview): one
// small item per environment, read with the SLA policy and overrides in force (one BatchGetItem each), instead of its
// current scans' alerts, URIs, rules and first sightings. A digest carries the version of its inputs it was built
// at (keys.overdueDigest `version`, which the writes of those inputs move: applications/model.ts overdueDigestMove)
// and the tag of its application's description routes (issue ids depend on them); one that is missing or not
// current is recomputed as overdueOfEnvironments does and written back, conditioned on the version read, so the
// answer is always the recomputation's and the projection heals itself.

/** The days per severity that apply to an environment (governance/sla-days.ts slaDaysResolver). */
type SlaDaysOf = (scope: {
  applicationId: string;
  environmentId: string;
}) => Record<(typeof DUE_SEVERITIES)[number], number>;

/**
 * The overdue findings of the environments' current scans: each one's tool streams' latest (docs/DATA-MODEL.md, Tool
 * streams), their records read together (one BatchGetItem: the list entries do not carry the streams). The
 * recomputation, and what a digest is built from: an environment without a record (deleted meanwhile) has none.
 */
export async function overdueOfEnvironments(orgId: string, envs: ListEntry[], now: number) {
  const records = envs.length ? await getEnvironmentsByKeys(envs) : [];
  const byId = new Map(records.map((record) => [record.environmentId, record]));
  return Promise.all(
    envs.map(async (env) => {
      const record = byId.get(env.environmentId);
      return (record ? await overdueOfCurrentScans(orgId, record, now) : []).map((found) => ({ env, ...found }));
    }),
  );
}

/** A digest's stored items above this size are not written (the environment is then recomputed on each read). */
const DIGEST_MAX_BYTES = 300_000;

/** The stored summary's attributes (its details are an item of their own, read only when listed). */
interface StoredDigest {
  version?: number;
  built?: number;
  templates?: string;
  asOf?: number;
  issues?: number;
  startsHigh?: Uint8Array;
  startsMedium?: Uint8Array;
  startsLow?: Uint8Array;
  heads?: Uint8Array;
}

/** One environment's digest as read or rebuilt: `details` in hand when rebuilt, else read when listed. */
export interface EnvironmentDigest {
  env: ListEntry;
  digest: Omit<OverdueDigest, 'details'>;
  built: number;
  details?: (DigestDetail | null)[];
}

const startsKey = (severity: string) => `starts${severity}` as 'startsHigh' | 'startsMedium' | 'startsLow';

/** The digest of a stored summary, when it is current: built at its version, with the routes' tag, as of `now`. */
function currentDigest(stored: StoredDigest | undefined, tag: string, now: number) {
  if (!stored || stored.built === undefined || stored.built !== (stored.version ?? 0)) return undefined;
  if ((stored.templates ?? '') !== tag || (stored.asOf ?? 0) > now) return undefined;
  return {
    issues: stored.issues ?? 0,
    starts: {
      High: decodeStarts(stored.startsHigh),
      Medium: decodeStarts(stored.startsMedium),
      Low: decodeStarts(stored.startsLow),
    },
    heads: decodeHeads(stored.heads),
  };
}

/**
 * The digests of `envs` (the overview's environments with the most untriaged findings), in their order, with the days
 * that apply to each: one BatchGetItem of their summaries and their applications' routes tags beside the SLA policy's;
 * those not current are rebuilt (rebuildDigests).
 */
export async function digestsOf(orgId: string, envs: ListEntry[], now: number) {
  const apps = [...new Set(envs.map((e) => e.applicationId))];
  const [items, daysOf] = await Promise.all([
    envs.length
      ? batchGet([
          ...envs.map((e) => keys.overdueDigest(e.applicationId, e.environmentId)),
          ...apps.map((appId) => keys.hostedDescriptionRoutesTag(appId)),
        ])
      : [],
    slaDaysResolver(orgId, envs),
  ]);
  const bySk = new Map(items.map((item) => [`${item.pk}\n${item.sk}`, item]));
  const at = (key: { pk: string; sk: string }) => bySk.get(`${key.pk}\n${key.sk}`);
  const tagOf = (appId: string) => (at(keys.hostedDescriptionRoutesTag(appId))?.version as string) ?? '';
  const stale: { env: ListEntry; version: number; tag: string }[] = [];
  const read = new Map<ListEntry, EnvironmentDigest>();
  for (const env of envs) {
    const stored = at(keys.overdueDigest(env.applicationId, env.environmentId)) as StoredDigest | undefined;
    const digest = currentDigest(stored, tagOf(env.applicationId), now);
    if (digest) read.set(env, { env, digest, built: stored!.built! });
    else stale.push({ env, version: stored?.version ?? 0, tag: tagOf(env.applicationId) });
  }
  for (const rebuilt of await rebuildDigests(orgId, stale, now)) read.set(rebuilt.env, rebuilt);
  return { digests: envs.map((env) => read.get(env)!), daysOf };
}

/**
 * The digests of `stale` environments recomputed from their current scans (scans/scan-sla.ts overdueOfScan, as
 * overdueOfEnvironments reads them), each written back conditioned on the `version` read before (a write of its
 * inputs since fails it: the next read rebuilds it again). Its inputs are read strongly consistent
 * (db/consistent-reads.ts): each sees every write the version read counts, so a digest stored at that version is
 * built from them all. Not written: without a version read, an environment without a record, a digest whose rules
 * have history after `now` (its clocks left it out), or one past DIGEST_MAX_BYTES.
 */
export async function rebuildDigests(
  orgId: string,
  stale: { env: ListEntry; version?: number; tag?: string }[],
  now: number,
): Promise<EnvironmentDigest[]> {
  const records = stale.length ? await withConsistentReads(() => getEnvironmentsByKeys(stale.map((s) => s.env))) : [];
  const byId = new Map(records.map((record) => [record.environmentId, record]));
  return Promise.all(
    stale.map(async ({ env, version, tag }) => {
      const record = byId.get(env.environmentId);
      const found = record ? await withConsistentReads(() => overdueOfCurrentScans(orgId, record, now)) : [];
      const detections = found.flatMap((f) => f.due.map((d) => ({ ...d, scanId: f.scan.scanId })));
      const asOf = Math.max(0, ...found.map((f) => f.asOf));
      const digest = overdueDigestOf(detections);
      if (record && asOf <= now && version !== undefined) await storeDigest(env, digest, { version, tag: tag!, asOf });
      const { details, ...summary } = digest;
      return { env, digest: summary, built: version ?? -1, details };
    }),
  );
}

/** Writes a rebuilt digest and its details, if its inputs' version is still the one read (else leaves it). */
async function storeDigest(
  env: ListEntry,
  digest: OverdueDigest,
  at: { version: number; tag: string; asOf: number },
): Promise<void> {
  const details = JSON.stringify(digest.details);
  const values: Record<string, unknown> = {
    ':entity': 'overdueDigest',
    ':built': at.version,
    ':templates': at.tag,
    ':asOf': at.asOf,
    ':issues': digest.issues,
  };
  const set = ['entity = :entity', 'built = :built', 'templates = :templates', 'asOf = :asOf', 'issues = :issues'];
  const remove: string[] = [];
  const binaries: [string, Uint8Array][] = [
    ...DUE_SEVERITIES.map((s): [string, Uint8Array] => [startsKey(s), encodeStarts(digest.starts[s])]),
    ['heads', encodeHeads(digest.heads)],
  ];
  // Empty binary values are left out (removed): DynamoDB Local refuses them.
  for (const [name, bytes] of binaries) {
    if (bytes.length === 0) remove.push(name);
    else {
      set.push(`${name} = :${name}`);
      values[`:${name}`] = bytes;
    }
  }
  const size = details.length + binaries.reduce((n, [, bytes]) => n + bytes.length, 0);
  if (size > DIGEST_MAX_BYTES) return;
  if (at.version) values[':version'] = at.version;
  const key = keys.overdueDigest(env.applicationId, env.environmentId);
  try {
    await transactWrite([
      {
        Update: {
          TableName: config.tableName,
          Key: key,
          UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
          ConditionExpression: at.version ? 'version = :version' : 'attribute_not_exists(version)',
          ExpressionAttributeValues: values,
        },
      },
      {
        Put: {
          TableName: config.tableName,
          Item: {
            ...keys.overdueDigestDetails(env.applicationId, env.environmentId),
            entity: 'overdueDigestDetails',
            built: at.version,
            details,
          },
        },
      },
    ]);
  } catch (error) {
    if (failedConditions(error).length === 0) throw error;
  }
}

/** A listed overdue finding: its environment, its detection's details, its due date. */
export type ListedOverdue = DigestDetail & { env: ListEntry; severity: string; dueDate: number; daysLeft: number };

/**
 * The overdue figures of `digests` under the days that apply to each (`daysOf`) at `now`, as the overview answers them:
 * issues with a due date, overdue issues by severity, and the OVERDUE_LISTED most overdue with their details (read
 * for the environments they come from; a digest whose details changed meanwhile is rebuilt, and the figures taken
 * again).
 */
export async function overdueOfDigests(
  orgId: string,
  digests: EnvironmentDigest[],
  daysOf: SlaDaysOf,
  now: number,
): Promise<{
  findingsWithDueDate: number;
  bySeverity: Record<string, number>;
  count: number;
  listed: ListedOverdue[];
}> {
  const bySeverity = { High: 0, Medium: 0, Low: 0 };
  let findingsWithDueDate = 0;
  const overdue: (DigestOverdue & { from: EnvironmentDigest })[] = [];
  for (const from of digests) {
    const figures = overdueOfDigest(from.digest, daysOf(from.env), now);
    findingsWithDueDate += figures.findingsWithDueDate;
    for (const s of DUE_SEVERITIES) bySeverity[s] += figures.bySeverity[s];
    overdue.push(...figures.overdue.map((o) => ({ ...o, from })));
  }
  // Stable: equal due dates and hashes keep the environments' order, as the recomputation's issueRepresentatives.
  overdue.sort((a, b) => a.dueDate - b.dueDate || a.findingHash.localeCompare(b.findingHash));
  const top = overdue.slice(0, OVERDUE_LISTED);
  const unread = [...new Set(top.map((o) => o.from).filter((from) => !from.details))];
  if (unread.length) {
    const items = await batchGet(
      unread.map((d) => keys.overdueDigestDetails(d.env.applicationId, d.env.environmentId)),
    );
    const stale: EnvironmentDigest[] = [];
    for (const from of unread) {
      const item = items.find(
        (i) => i.sk === keys.overdueDigestDetails(from.env.applicationId, from.env.environmentId).sk,
      );
      if (item && item.built === from.built) from.details = JSON.parse(item.details as string);
      else stale.push(from);
    }
    if (stale.length) {
      const rebuilt = await rebuildDigests(
        orgId,
        stale.map((d) => ({ env: d.env })),
        now,
      );
      const again = digests.map((d) => rebuilt.find((r) => r.env === d.env) ?? d);
      return overdueOfDigests(orgId, again, daysOf, now);
    }
  }
  const listed = top.map(({ from, head, severity, dueDate, daysLeft }) => {
    const detail = from.details![head];
    if (!detail) throw new Error(`overdue digest of ${from.env.environmentId}: a listed head without its details`);
    return { ...detail, env: from.env, severity, dueDate, daysLeft };
  });
  return { findingsWithDueDate, bySeverity, count: bySeverity.High + bySeverity.Medium + bySeverity.Low, listed };
}
