import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db } from '../db/client.ts';
import { expiryDay, keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { queryItems } from '../db/query.ts';
import { transactWrite } from '../db/transactions.ts';
import { config } from '../config.ts';
import { HttpError } from '../errors.ts';
import { logger } from '../context/logger.ts';
import { getApplication } from '../applications/application-repository.ts';
import type { EnvironmentRecord } from '../applications/model.ts';
import { triageFinding } from './triage.ts';
import { derivedWrites } from '../db/entity-write.ts';
import { riskAcceptance } from '../governance/entities.ts';
import { EXPIRY_ACTOR, type RiskExpiryEntry } from '../governance/model.ts';

// Risk acceptances that expire (docs/GOVERNANCE.md): the check that makes an expired acceptance's finding untriaged
// again, run every minute (on AWS by an EventBridge schedule, functions/expire-risk-acceptances.ts; locally by
// `npm start`). It reads the expiry index's day partitions from its cursor up to today, and in each only the entries
// due by now: its reads follow the acceptances that expire, never the size of the table.

/** Days read before today when the check has never run. */
const FIRST_RUN_DAYS = 31;
/** Expiries one run handles at most; the next run goes on. */
const MAX_PER_RUN = 500;

/** The first day whose partition may still hold entries (the check's cursor). */
async function cursorDay(now: number): Promise<number> {
  const out = await db.send(
    new GetCommand({ TableName: config.tableName, Key: keys.riskExpiryCursor(), ConsistentRead: true }),
  );
  return fromItem<{ day: number }>(out.Item)?.day ?? expiryDay(now) - FIRST_RUN_DAYS;
}

/** Moves the cursor forward only (a slower concurrent run never moves it back). */
async function advanceCursor(day: number): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.riskExpiryCursor(),
        UpdateExpression: 'SET #day = :day, entity = :entity',
        ConditionExpression: 'attribute_not_exists(#day) OR #day < :day',
        ExpressionAttributeNames: { '#day': 'day' },
        ExpressionAttributeValues: { ':day': day, ':entity': 'riskExpiryCursor' },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * Expires one acceptance: the finding's rule goes back to UNKNOWN with ALERT_RULE_TRIAGED and the events, in one
 * transaction that consumes the entry (so it happens once whoever runs it). An entry whose acceptance changed
 * meanwhile, or whose finding, environment or application is gone, is removed without a change. Whether it expired.
 */
async function expireOne(entry: RiskExpiryEntry, now: number): Promise<boolean> {
  const app = await getApplication(entry.applicationId);
  let outcome: Awaited<ReturnType<typeof triageFinding>> = undefined;
  if (app) {
    const env = { applicationId: entry.applicationId, environmentId: entry.environmentId } as EnvironmentRecord;
    try {
      outcome = await triageFinding(
        EXPIRY_ACTOR,
        app,
        env,
        entry.findingHash,
        () => 'UNKNOWN',
        `risk acceptance expired (accepted until ${new Date(entry.expiresAt).toISOString()})`,
        { expiring: entry.expiresAt, now },
      );
    } catch (error) {
      if (!(error instanceof HttpError && error.statusCode === 404)) throw error; // the environment is gone
    }
  }
  if (outcome && outcome !== 'stale') return true;
  // The acceptance the entry records no longer stands (changed, or its finding gone): from it to none.
  const { expiresAt, ...finding } = entry;
  const accepted = { status: 'RISK_ACCEPTED', expiresAt };
  await transactWrite(derivedWrites(riskAcceptance, accepted, undefined, { ...finding, expiring: false }));
  return false;
}

/** One pass of the check as of `now` (ms). Answers how many acceptances expired. */
export async function expireRiskAcceptances(now = Date.now()): Promise<{ expired: number }> {
  const today = expiryDay(now);
  let expired = 0;
  let handled = 0;
  for (let day = await cursorDay(now); day <= today; day++) {
    const due = keys.riskExpiriesDue(day, now);
    let complete = true;
    for await (const item of queryItems({ partition: due.pk, skTo: due.skTo, pageLimit: 100 })) {
      if (handled >= MAX_PER_RUN) {
        complete = false;
        break;
      }
      handled++;
      const entry = fromItem<RiskExpiryEntry>(item)!;
      try {
        if (await expireOne(entry, now)) expired++;
      } catch (error) {
        // Left for the next run (the entry stays, so does the cursor).
        complete = false;
        logger.warn('risk acceptance expiry left to the next run', { ...entry, error });
      }
    }
    // A past day fully handled holds no more entries (none is ever written for a time already past).
    if (!complete) break;
    // Never past the wall clock's day, whatever `now` a caller passes (a run ahead of time must not skip a day).
    if (day < Math.min(today, expiryDay(Date.now()))) await advanceCursor(day + 1);
  }
  return { expired };
}
