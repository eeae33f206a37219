import { cancelledItems } from './items.ts';

// The one retry helper of the service: a write built from what it read loses a race when another request changed
// those items first (a failed condition, a TransactionConflict). It is built again from fresh reads, a bounded
// number of times, with a jittered exponential backoff so that writers of the same items queue up instead of
// colliding again in lockstep. The final error carries the reason of the last lost race.

/** Before attempt n (n >= 2): a random wait in [0, min(backoffMs * 2^(n - 2), MAX_BACKOFF_MS)). */
export const DEFAULT_BACKOFF_MS = 10;
export const MAX_BACKOFF_MS = 500;

export interface RetryOnConflictOptions {
  /** Attempts in all, the first included (at least 1). */
  attempts: number;
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
 * most `attempts` times in all. Each attempt must read what it builds on afresh.
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
      if (n >= options.attempts || outOfTime) throw exhaustedError(options, reason, n, error);
      const base = options.backoffMs ?? DEFAULT_BACKOFF_MS;
      if (base > 0) await sleep(Math.random() * Math.min(base * 2 ** (n - 1), MAX_BACKOFF_MS));
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
