import { cancelledItems } from './items.ts';

// The retry policy of the service, in one place: every retry in shared/ goes through retryOnConflict below with
// one of these two bounds (a time budget may end it sooner). Two kinds of failure are worth another attempt:
// - a lost race: a write built from what it read fails because another request changed those items first (a failed
//   condition, a TransactionConflict), or a read sees a write commit while it reads. It is built again from fresh
//   reads, with a jittered exponential backoff so that writers of the same items queue up instead of colliding
//   again in lockstep. The final error carries the reason of the last lost race (409 for a request:
//   shared/http/middlewares.ts).
// - another service's failure: a webhook or tracker delivery its receiver failed (the delivery queue receives it
//   again after a backoff: docs/WEBHOOKS.md, Delivery), or an ECS RunTask refused for capacity (shared/perch/runner.ts).

/** Attempts in all, the first included, of what loses races to concurrent writers of the same items. */
export const CONFLICT_ATTEMPTS = 8;
/**
 * Attempts in all of a call another service failed: a delivery's receives before it is dead (the default of
 * WEBHOOK_MAX_ATTEMPTS, and the delivery queue's maxReceiveCount on AWS: infra/stack.ts); RunTask within its budget.
 */
export const PEER_ATTEMPTS = 8;

/** Before attempt n (n >= 2): a random wait in [0, min(backoffMs * 2^(n - 2), MAX_BACKOFF_MS)). */
export const DEFAULT_BACKOFF_MS = 10;
export const MAX_BACKOFF_MS = 500;

export interface RetryOnConflictOptions {
  /** Attempts in all, the first included (at least 1); CONFLICT_ATTEMPTS unless said. */
  attempts?: number;
  /**
   * Why the attempt's error is a lost race worth another attempt (`'ConditionalCheckFailed at countChanged'`,
   * `'TransactionConflict'`), or undefined: the error is thrown at once, as it is.
   */
  conflict: (error: unknown) => string | undefined;
  /**
   * The error thrown when the last attempt lost too, given the last reason; its `cause` is set to the last error.
   * Without it the last error itself is thrown.
   */
  exhausted?: (reason: string) => Error;
  /** Base of the backoff in ms (0: retry at once). */
  backoffMs?: number;
  /** The wait in ms after attempt n lost, instead of the jittered backoff. */
  waitMs?: (n: number) => number;
  /** No further attempt once this many ms have passed since the first one. */
  budgetMs?: number;
}

/** An error that ended a retried write: the reason of the last lost race and how many attempts were made. */
export interface RetriesExhausted {
  retryReason: string;
  attempts: number;
}

/**
 * Runs `attempt(n)` (n = 1, 2, ...) until it returns, retrying only the errors `conflict` names a reason for, at
 * most `attempts` (CONFLICT_ATTEMPTS) times in all. Each attempt must read what it builds on afresh.
 */
export async function retryOnConflict<T>(
  options: RetryOnConflictOptions,
  attempt: (n: number) => Promise<T>,
): Promise<T> {
  const started = Date.now();
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      const reason = options.conflict(error);
      if (reason === undefined) throw error;
      const outOfTime = options.budgetMs !== undefined && Date.now() - started > options.budgetMs;
      if (n >= (options.attempts ?? CONFLICT_ATTEMPTS) || outOfTime) throw exhaustedError(options, reason, n, error);
      const base = options.backoffMs ?? DEFAULT_BACKOFF_MS;
      if (options.waitMs) await sleep(options.waitMs(n));
      else if (base > 0) await sleep(Math.random() * Math.min(base * 2 ** (n - 1), MAX_BACKOFF_MS));
    }
  }
}

function exhaustedError(options: RetryOnConflictOptions, reason: string, attempts: number, last: unknown): unknown {
  const final = options.exhausted ? options.exhausted(reason) : last;
  if (!(final instanceof Error)) return final;
  if (final !== last && final.cause === undefined) final.cause = last;
  return Object.assign(final, { retryReason: reason, attempts } satisfies RetriesExhausted);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A lost race an attempt finds out by itself rather than by an error of the SDK (a refused conditional update that
 * answers the current state, a value read twice that changed between the reads): thrown to have it retried.
 */
export class LostRace extends Error {}

/** The reason of a LostRace, for `conflict`. */
export const lostRace = (error: unknown): string | undefined => (error instanceof LostRace ? error.message : undefined);

/**
 * The usual lost race of a transaction: a failed condition (at any item, or only at the items `at` names: items.ts
 * `named`, docs/DATA-MODEL.md, Projections) or a TransactionConflict, named with the first item it happened at.
 */
export function transactionConflict(at?: string[]): (error: unknown) => string | undefined {
  return cancelledBy(
    (code, name) => code === 'TransactionConflict' || (code === 'ConditionalCheckFailed' && inside(at, name)),
  );
}

/** A transaction cancelled by a failed condition (at any item, or only at the items `at` names), named with its item. */
export function failedCondition(at?: string[]): (error: unknown) => string | undefined {
  return cancelledBy((code, name) => code === 'ConditionalCheckFailed' && inside(at, name));
}

const inside = (at: string[] | undefined, name: string) => !at || at.includes(name);

function cancelledBy(matches: (code: string, name: string) => boolean): (error: unknown) => string | undefined {
  return (error) => {
    const item = cancelledItems(error)?.find(({ code, name }) => matches(code, name));
    return item && `${item.code} at ${item.name}`;
  };
}
