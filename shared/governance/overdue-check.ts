import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db } from '../db/client.ts';
import { expiryDay, keys } from '../db/keys.ts';
import { failedConditions, fromItem } from '../db/items.ts';
import { queryAll, queryItems } from '../db/query.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { config } from '../config.ts';
import { logger } from '../context/logger.ts';
import { getApplication } from '../applications/application-repository.ts';
import { getEnvironment } from '../applications/environment-repository.ts';
import { findingsOfEnvironment, rulesOfEnvironment } from '../results/finding-repository.ts';
import { type FindingRecord } from '../results/model.ts';
import { entityWrite } from '../db/entity-write.ts';
import { overdueEventId } from '../webhooks/model.ts';
import { overdueFired } from './entities.ts';
import type { OverdueContext } from './projections/overdue-outbox.ts';
import { slaClock, severityDays } from './model.ts';
import { slaDaysResolver } from './sla-days.ts';
import {
  episodeStart,
  overdueWakeDelete,
  overdueWakePut,
  type OverdueFiredMark,
  type OverdueWake,
  type OverdueWakeRef,
} from './overdue.ts';

// The overdue check (docs/GOVERNANCE.md, Overdue findings): records findingOverdue for each finding past its due
// date, once per overdue episode, without waiting for a scan. Run every minute (on AWS by an EventBridge schedule,
// functions/notify-overdue-findings.ts; locally by `npm start`). It reads only the environments whose entry is due
// (the index's day partitions from its cursor up to today), computes their findings' due dates with the policy and
// overrides in force and the triage history, and keys each entry to the environment's next due date.

/** Environments one run reads at most; the next run goes on. */
const MAX_PER_RUN = 100;
/** Entries an SLA change brings forward per run at most (it reads past the others: small items, one query). */
const MAX_BROUGHT_FORWARD = 1000;
/**
 * How long after an SLA change its organization's later entries are still brought forward: a run that read the
 * days before the change may key an entry by them after it (a run takes at most its function's 60 s).
 */
const RECHECK_SETTLE_MS = 2 * 60_000;
/** Findings whose events one transaction records (2 items each, with the entry's 2). */
const FIRES_PER_TRANSACTION = 45;

const FINDING_ATTRIBUTES: (keyof FindingRecord)[] = [
  'findingHash',
  'pluginId',
  'requestMethod',
  'path',
  'severity',
  'firstSeen',
  'currentSince',
  'fixedAt',
];

/** The first day whose partition may still hold entries (entries are never written for a past time). */
async function cursorDay(now: number): Promise<number> {
  const out = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.overdueCursor(), ConsistentRead: true }),
  );
  // Before the first advance: the day before the wall clock's (never a later one, whatever `now` a caller passes).
  return fromItem<{ day: number }>(out.Item)?.day ?? expiryDay(Math.min(now, Date.now())) - 1;
}

/** Moves the cursor forward only. */
async function advanceCursor(day: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.overdueCursor(),
        UpdateExpression: 'SET #day = :day, entity = :entity',
        ConditionExpression: 'attribute_not_exists(#day) OR #day < :day',
        ExpressionAttributeNames: { '#day': 'day' },
        ExpressionAttributeValues: { ':day': day, ':entity': 'overdueCursor' },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** Commits `items`; false when a condition failed (another run got there first). */
async function commitUnlessRaced(items: TransactItem[]): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (failedConditions(error).length) return false;
    throw error;
  }
}

/**
 * An SLA change (the policy, an override) may bring due dates forward: each organization that changed has its
 * later entries keyed to now, so that the check reads their environments again with the new days, for a couple of
 * minutes after the change (RECHECK_SETTLE_MS). A change while this runs asks again (`requestedAt`).
 */
async function bringForwardChanged(now: number): Promise<void> {
  for (const item of await queryAll({ partition: keys.slaRechecks().pk, consistent: true })) {
    const { organizationId, requestedAt } = item as { organizationId: string; requestedAt: number };
    const later = keys.overdueWakesOfOrgAfter(organizationId, now);
    let moved = 0;
    for await (const entry of queryItems({
      index: 'gsi1',
      partition: later.gsi1pk,
      skFrom: later.gsi1skFrom,
      pageLimit: 200,
    })) {
      if (moved >= MAX_BROUGHT_FORWARD) break;
      const wake = fromItem<OverdueWake>(entry)!;
      // Keyed by days read before the change: brought forward (once: its next keying reads the new days).
      if (wake.daysReadAt === undefined || wake.daysReadAt >= requestedAt) continue;
      moved++;
      const { daysReadAt: _old, ...ref } = wake;
      await commitUnlessRaced([overdueWakeDelete(wake, true), overdueWakePut({ ...ref, checkAt: now })]);
    }
    // The next run goes on; a recent change is kept until no run can still be keying entries by the old days.
    if (moved >= MAX_BROUGHT_FORWARD || now < requestedAt + RECHECK_SETTLE_MS) continue;
    try {
      await db.send(
        new DeleteCommand({
          TableName: config.tableName,
          Key: keys.slaRecheck(organizationId),
          ConditionExpression: 'requestedAt = :at',
          ExpressionAttributeValues: { ':at': requestedAt },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

/** The environment's findingOverdue marks by finding: the episode each finding last had its event for. */
async function firedMarks(env: { applicationId: string; environmentId: string }) {
  const { pk, skPrefix } = keys.overdueFiredOfEnvironment(env.applicationId, env.environmentId);
  const items = await queryAll({ partition: pk, skPrefix, consistent: true });
  return new Map(items.map((item) => [item.findingHash as string, fromItem<OverdueFiredMark>(item)!]));
}

/**
 * A finding's mark of a new overdue episode with its projection, the episode's findingOverdue in the outbox: only if
 * no event was recorded for this episode or a later one (another run may have, since `before` was read).
 */
function overdueFiredWrite(
  env: OverdueWakeRef,
  before: OverdueFiredMark | undefined,
  mark: OverdueFiredMark,
  context: OverdueContext,
): TransactItem[] {
  return entityWrite(
    overdueFired,
    {
      key: keys.overdueFired(env.applicationId, env.environmentId, mark.findingHash),
      before,
      after: mark,
      name: 'overdueFired',
      replace: true,
      condition: { expression: 'attribute_not_exists(pk) OR episode < :episode', values: { ':episode': mark.episode } },
    },
    context,
  );
}

/**
 * Reads the entry's environment and records findingOverdue for each of its findings past its due date whose
 * episode has none yet; the entry is consumed in the last of those transactions and replaced by one at the
 * environment's next due date (none when no clock runs). An environment or application gone: the entry goes.
 * Answers the events recorded.
 */
async function checkEnvironment(wake: OverdueWake, now: number): Promise<number> {
  const app = await getApplication(wake.applicationId);
  const env =
    app?.organizationId === wake.organizationId && (await getEnvironment(app.applicationId, wake.environmentId));
  if (!app || !env) {
    await commitUnlessRaced([overdueWakeDelete(wake, true)]);
    return 0;
  }
  const daysReadAt = Date.now();
  const [daysOf, rules, marks] = await Promise.all([
    slaDaysResolver(app.organizationId, [env]),
    rulesOfEnvironment(env),
    firedMarks(env),
  ]);
  const days = daysOf(env);
  const fires: TransactItem[][] = [];
  let next: number | undefined;
  for await (const record of findingsOfEnvironment(env, FINDING_ATTRIBUTES)) {
    const finding = record as FindingRecord;
    if (finding.fixedAt !== undefined) continue; // fixed: no current finding
    const slaDays = severityDays(days, finding.severity);
    const rule = rules.get(finding.findingHash);
    const clock = slaClock(finding.firstSeen, slaDays, rule?.history ?? [], now);
    if (clock.dueAt === undefined) continue; // set aside, or Info
    const episode = episodeStart(finding, rule?.history ?? []);
    if ((marks.get(finding.findingHash)?.episode ?? -1) >= episode) continue; // recorded for this episode
    if (!clock.overdue) {
      next = Math.min(next ?? Infinity, clock.dueAt + 1);
      continue;
    }
    const context = {
      organizationId: app.organizationId,
      applicationId: app.applicationId,
      environmentId: env.environmentId,
      app,
      envName: env.name,
      finding: {
        findingHash: finding.findingHash,
        pluginId: finding.pluginId,
        severity: finding.severity,
        requestMethod: finding.requestMethod,
        path: finding.path,
      },
    };
    const mark: OverdueFiredMark = {
      findingHash: finding.findingHash,
      episode,
      dueAt: clock.dueAt,
      firedAt: now,
      eventId: overdueEventId(env.environmentId, finding.findingHash, episode),
    };
    const status = rule?.status ?? 'UNKNOWN';
    fires.push(
      overdueFiredWrite(wake, marks.get(finding.findingHash), mark, {
        ...context,
        status,
        firstSeen: finding.firstSeen,
        slaDays: slaDays!,
      }),
    );
  }
  const entry = [
    overdueWakeDelete(wake, true),
    ...(next ? [overdueWakePut({ ...wake, checkAt: next, daysReadAt })] : []),
  ];
  const chunks: TransactItem[][][] = [];
  for (let i = 0; i < fires.length; i += FIRES_PER_TRANSACTION) chunks.push(fires.slice(i, i + FIRES_PER_TRANSACTION));
  if (chunks.length === 0) chunks.push([]);
  let fired = 0;
  for (const [i, chunk] of chunks.entries()) {
    const last = i === chunks.length - 1;
    if (await commitUnlessRaced([...chunk.flat(), ...(last ? entry : [])])) {
      fired += chunk.length;
      continue;
    }
    // Another run recorded some of them, or consumed the entry: each on its own, what is left.
    for (const fire of chunk) if (await commitUnlessRaced(fire)) fired++;
    if (last) await commitUnlessRaced(entry);
  }
  return fired;
}

/** One pass of the check as of `now` (ms): the environments read and the findingOverdue events recorded. */
export async function notifyOverdueFindings(now = Date.now()): Promise<{ environments: number; fired: number }> {
  await bringForwardChanged(now);
  const today = expiryDay(now);
  let environments = 0;
  let fired = 0;
  for (let day = await cursorDay(now); day <= today; day++) {
    const due = keys.overdueWakesDue(day, now);
    let complete = true;
    for await (const item of queryItems({ partition: due.pk, skTo: due.skTo, pageLimit: 100 })) {
      if (environments >= MAX_PER_RUN) {
        complete = false;
        break;
      }
      environments++;
      const wake = fromItem<OverdueWake>(item)!;
      try {
        fired += await checkEnvironment(wake, now);
      } catch (error) {
        // Left for the next run (the entry stays, so does the cursor).
        complete = false;
        logger.warn('overdue check of an environment left to the next run', { ...wake, error });
      }
    }
    if (!complete) break;
    // A writer's clock may lag the check's a little: a day is left behind only once the next one is over too.
    if (day < Math.min(today, expiryDay(Date.now())) - 1) await advanceCursor(day + 1);
  }
  return { environments, fired };
}
