import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db } from './db/client.ts';
import { config } from './config.ts';

// Sliding-window rate limit (SPEC 8) with one-second resolution: at most `limit` admissions in any 60
// consecutive seconds. One record per subject holds a count per second of the last minute and their running
// total. Admission within the record's current second is one conditional UpdateItem (`total < limit`), atomic
// across concurrent Lambdas, so a burst can never be over-admitted. The first admission in a new second also
// drops the seconds that left the window: a compare-and-set on the state the failed update returned.
const WINDOW_SECONDS = 60;
const MAX_ATTEMPTS = 8;

interface WindowRecord {
  second: number;
  total: number;
  counts: Record<string, number>;
}

export type RateDecision = { admitted: true } | { admitted: false; retryAfterSeconds: number };

export async function admit(subject: { pk: string }, limit: number, nowMs = Date.now()): Promise<RateDecision> {
  const second = Math.floor(nowMs / 1000);
  const expiresAt = second + WINDOW_SECONDS * 2; // TTL: an idle subject's record disappears by itself
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await incrementWithinSecond(subject, second, limit, expiresAt);
    if (current === 'admitted') return { admitted: true };
    if (current === undefined) {
      if (await createRecord(subject, second, expiresAt)) return { admitted: true };
      continue;
    }
    if (current.second > second) return admit(subject, limit, current.second * 1000); // our clock lags another Lambda's
    const expired = Object.keys(current.counts).filter((s) => Number(s) <= second - WINDOW_SECONDS);
    const remaining = current.total - expired.reduce((sum, s) => sum + current.counts[s], 0);
    if (remaining >= limit) return { admitted: false, retryAfterSeconds: retryAfter(current, second, limit) };
    if (current.second === second) continue; // total moved under us: try the fast path again
    if (await rollOver(subject, current, second, remaining, expired, expiresAt)) return { admitted: true };
  }
  // Persistent contention: refusing is safe, admitting could exceed the limit.
  return { admitted: false, retryAfterSeconds: 1 };
}

/** 'admitted', or the record as it stood when the condition failed (undefined: no record yet). */
async function incrementWithinSecond(
  subject: { pk: string },
  second: number,
  limit: number,
  expiresAt: number,
): Promise<'admitted' | WindowRecord | undefined> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: config.rateLimitTableName,
        Key: subject,
        UpdateExpression: 'SET #total = #total + :one, #counts.#s = #counts.#s + :one, expiresAt = :exp',
        ConditionExpression: '#second = :second AND #total < :limit',
        ExpressionAttributeNames: { '#total': 'total', '#counts': 'counts', '#s': String(second), '#second': 'second' },
        ExpressionAttributeValues: { ':one': 1, ':second': second, ':limit': limit, ':exp': expiresAt },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return 'admitted';
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const item = error.Item ? unmarshallRecord(error.Item) : await readRecord(subject);
    return item;
  }
}

async function createRecord(subject: { pk: string }, second: number, expiresAt: number): Promise<boolean> {
  try {
    await db.send(
      new PutCommand({
        TableName: config.rateLimitTableName,
        Item: { ...subject, second, total: 1, counts: { [second]: 1 }, expiresAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

async function rollOver(
  subject: { pk: string },
  current: WindowRecord,
  second: number,
  remaining: number,
  expired: string[],
  expiresAt: number,
): Promise<boolean> {
  const names: Record<string, string> = { '#total': 'total', '#counts': 'counts', '#second': 'second', '#s': String(second) };
  expired.forEach((s, i) => (names[`#e${i}`] = s));
  const removals = expired.map((_, i) => `#counts.#e${i}`);
  try {
    await db.send(
      new UpdateCommand({
        TableName: config.rateLimitTableName,
        Key: subject,
        UpdateExpression:
          `SET #second = :second, #total = :total, #counts.#s = :one, expiresAt = :exp` +
          (removals.length ? ` REMOVE ${removals.join(', ')}` : ''),
        ConditionExpression: '#second = :oldSecond AND #total = :oldTotal',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ':second': second,
          ':total': remaining + 1,
          ':one': 1,
          ':exp': expiresAt,
          ':oldSecond': current.second,
          ':oldTotal': current.total,
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Seconds until enough of the window has slid out for one more request to fit. */
function retryAfter(record: WindowRecord, second: number, limit: number): number {
  let total = record.total;
  const seconds = Object.keys(record.counts).map(Number).sort((a, b) => a - b);
  for (const s of seconds) {
    total -= record.counts[String(s)];
    if (total < limit) return Math.max(1, s + WINDOW_SECONDS - second);
  }
  return WINDOW_SECONDS;
}

async function readRecord(subject: { pk: string }): Promise<WindowRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: config.rateLimitTableName, Key: subject, ConsistentRead: true }));
  return out.Item ? (out.Item as unknown as WindowRecord) : undefined;
}

function unmarshallRecord(item: Record<string, { N?: string; M?: Record<string, { N?: string }> }>): WindowRecord {
  const counts: Record<string, number> = {};
  for (const [s, v] of Object.entries(item.counts?.M ?? {})) counts[s] = Number(v.N);
  return { second: Number(item.second?.N), total: Number(item.total?.N), counts };
}
