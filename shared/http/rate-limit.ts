import { UpdateCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createClient } from '../db/client.ts';
import { LostRace, lostRace, retryOnConflict } from '../db/retry.ts';
import { config } from '../config.ts';

// Sliding-window rate limit (docs/API.md, Limits) with one-second resolution: at most `limit` admissions in any 60
// consecutive seconds, exact across concurrent Lambdas. One record per subject holds a count per second of the
// last minute and their running total. Every write is conditional on the state it was computed from, so a burst
// can never be over-admitted:
// - within the record's current second: `total < limit` -> increment (one UpdateItem);
// - in a later second: drop the seconds that left the window and count this request, conditional on the record
//   still being the version we computed from (one UpdateItem).
// Each process remembers the last version it saw per subject, so a steady client costs one call per request; a
// failed condition returns the current version and we go again.
const WINDOW_SECONDS = 60;
const CACHE_SIZE = 10_000;

interface WindowRecord {
  second: number;
  total: number;
  counts: Record<string, number>;
}

export type RateDecision = { admitted: true } | { admitted: false; retryAfterSeconds: number };

const lastSeen = new Map<string, WindowRecord>();

// The rate limit's own client (connection pool): its conditional updates never queue behind the reads a request
// issues beside them (shared/http/prefetch.ts), so a burst's updates land as fast as before those reads existed and
// do not drift across second boundaries, where they would contend and retry. Locally the table may live in its own
// DynamoDB Local (`npm start` keeps it in memory: scripts/local/stack.ts).
const db = createClient(config.rateLimitDynamodbEndpoint);

function remember(pk: string, record: WindowRecord | undefined): void {
  lastSeen.delete(pk);
  if (!record) return;
  lastSeen.set(pk, record);
  if (lastSeen.size > CACHE_SIZE) lastSeen.delete(lastSeen.keys().next().value!);
}

export async function admit(subject: { pk: string }, limit: number, nowMs = Date.now()): Promise<RateDecision> {
  let second = Math.floor(nowMs / 1000);
  let known = lastSeen.get(subject.pk);
  // Each lost race is retried at once (backoffMs 0): the refused write answered the version to compute from.
  const retry = { conflict: lostRace, backoffMs: 0 };
  const decided = await retryOnConflict(retry, async (): Promise<RateDecision> => {
    if (known && known.second > second) second = known.second; // our clock lags another process's
    const expiresAt = second + WINDOW_SECONDS * 2; // TTL: an idle subject's record disappears by itself
    let outcome: WriteOutcome;
    if (!known || known.second === second) {
      outcome = await incrementWithinSecond(subject, second, limit, expiresAt);
      if (outcome.kind === 'absent') outcome = await createRecord(subject, second, expiresAt);
    } else {
      const expired = Object.keys(known.counts).filter((s) => Number(s) <= second - WINDOW_SECONDS);
      const remaining = known.total - expired.reduce((sum, s) => sum + known!.counts[s], 0);
      if (remaining >= limit) return { admitted: false, retryAfterSeconds: retryAfter(known, second, limit) };
      outcome = await rollOver(subject, known, second, remaining, expired, expiresAt);
    }
    if (outcome.kind === 'written') {
      remember(subject.pk, outcome.record);
      return { admitted: true };
    }
    if (
      outcome.kind === 'refused' &&
      outcome.record &&
      outcome.record.second === second &&
      outcome.record.total >= limit
    ) {
      remember(subject.pk, outcome.record);
      return { admitted: false, retryAfterSeconds: retryAfter(outcome.record, second, limit) };
    }
    known = outcome.kind === 'refused' ? outcome.record : undefined;
    remember(subject.pk, known);
    throw new LostRace('the window changed');
  }).catch((error: unknown) => {
    if (lostRace(error) === undefined) throw error;
    return undefined;
  });
  // Persistent contention: refusing is safe, admitting could exceed the limit.
  return decided ?? { admitted: false, retryAfterSeconds: 1 };
}

type WriteOutcome =
  | { kind: 'written'; record: WindowRecord }
  | { kind: 'refused'; record: WindowRecord | undefined }
  | { kind: 'absent' };

/** An update of the rate-limit table (named here, in the command, which is where infra/code-access.ts looks for it). */
async function conditionalUpdate(
  input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>,
): Promise<WriteOutcome> {
  try {
    const out = await db.send(
      new UpdateCommand({
        ...input,
        TableName: config.rateLimitTableName,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { kind: 'written', record: out.Attributes as WindowRecord };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    if (!error.Item) return { kind: 'absent' };
    return { kind: 'refused', record: unmarshall(error.Item) as WindowRecord };
  }
}

function incrementWithinSecond(
  subject: { pk: string },
  second: number,
  limit: number,
  expiresAt: number,
): Promise<WriteOutcome> {
  return conditionalUpdate({
    Key: subject,
    UpdateExpression: 'SET #total = #total + :one, #counts.#s = #counts.#s + :one, expiresAt = :exp',
    ConditionExpression: '#second = :second AND #total < :limit',
    ExpressionAttributeNames: { '#total': 'total', '#counts': 'counts', '#s': String(second), '#second': 'second' },
    ExpressionAttributeValues: { ':one': 1, ':second': second, ':limit': limit, ':exp': expiresAt },
  });
}

async function createRecord(subject: { pk: string }, second: number, expiresAt: number): Promise<WriteOutcome> {
  const record: WindowRecord = { second, total: 1, counts: { [second]: 1 } };
  try {
    await db.send(
      new PutCommand({
        TableName: config.rateLimitTableName,
        Item: { ...subject, ...record, expiresAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { kind: 'written', record };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { kind: 'refused', record: undefined };
    throw error;
  }
}

function rollOver(
  subject: { pk: string },
  known: WindowRecord,
  second: number,
  remaining: number,
  expired: string[],
  expiresAt: number,
): Promise<WriteOutcome> {
  const names: Record<string, string> = {
    '#total': 'total',
    '#counts': 'counts',
    '#second': 'second',
    '#s': String(second),
  };
  expired.forEach((s, i) => (names[`#e${i}`] = s));
  const removals = expired.map((_, i) => `#counts.#e${i}`);
  return conditionalUpdate({
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
      ':oldSecond': known.second,
      ':oldTotal': known.total,
    },
  });
}

/** Seconds until enough of the window has slid out for one more request to fit. */
function retryAfter(record: WindowRecord, second: number, limit: number): number {
  let total = record.total;
  for (const s of Object.keys(record.counts)
    .map(Number)
    .sort((a, b) => a - b)) {
    total -= record.counts[String(s)];
    if (total < limit) return Math.max(1, s + WINDOW_SECONDS - second);
  }
  return WINDOW_SECONDS;
}
