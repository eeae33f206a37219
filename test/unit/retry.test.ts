import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import {
  CONFLICT_ATTEMPTS,
  LostRace,
  lostRace,
  MAX_BACKOFF_MS,
  retryOnConflict,
  transactionConflict,
  type RetriesExhausted,
} from '../../shared/db/retry.ts';
import { conflict, HttpError } from '../../shared/errors.ts';
import { named, recordItemNames } from '../../shared/db/items.ts';

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('retryOnConflict', () => {
  it('returns the first attempt that wins, having retried the lost races', async () => {
    const seen: number[] = [];
    const result = await retryOnConflict({ attempts: 5, conflict: transactionConflict(), backoffMs: 0 }, async (n) => {
      seen.push(n);
      if (n < 3) throw cancelled('None', 'ConditionalCheckFailed');
      return 'written';
    });
    expect(result).toBe('written');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('throws an error that is no lost race at once, as it is', async () => {
    const other = new Error('access denied');
    let calls = 0;
    const run = retryOnConflict({ attempts: 5, conflict: transactionConflict(), backoffMs: 0 }, async () => {
      calls++;
      throw other;
    });
    await expect(run).rejects.toBe(other);
    expect(calls).toBe(1);
  });

  it('stops after the bounded number of attempts with the reason of the last lost race', async () => {
    let calls = 0;
    const error: unknown = await retryOnConflict(
      {
        attempts: 4,
        conflict: transactionConflict(),
        backoffMs: 0,
        exhausted: (reason) => conflict(`team changed concurrently (${reason})`),
      },
      async () => {
        calls++;
        throw cancelled('None', 'TransactionConflict');
      },
    ).catch((e: unknown) => e);
    expect(calls).toBe(4);
    expect(error).toBeInstanceOf(HttpError);
    const final = error as HttpError & RetriesExhausted;
    expect(final.statusCode).toBe(409);
    expect(final.message).toBe('team changed concurrently (TransactionConflict at item 1)');
    expect(final.retryReason).toBe('TransactionConflict at item 1');
    expect(final.attempts).toBe(4);
    expect(final.cause).toBeInstanceOf(TransactionCanceledException);
  });

  it('throws the last error itself when no final error is given, the reason attached', async () => {
    const last = cancelled('ConditionalCheckFailed');
    const error = await retryOnConflict({ attempts: 2, conflict: transactionConflict(), backoffMs: 0 }, async () => {
      throw last;
    }).catch((e: unknown) => e);
    expect(error).toBe(last);
    expect((error as RetriesExhausted).retryReason).toBe('ConditionalCheckFailed at item 0');
  });

  it('waits a jittered backoff that doubles with each attempt, up to its cap', async () => {
    const delays: number[] = [];
    const realSetTimeout = globalThis.setTimeout;
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((run: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return realSetTimeout(run, 0);
    }) as typeof setTimeout);
    try {
      await retryOnConflict({ attempts: 5, conflict: () => 'lost', backoffMs: 100 }, async (n) => {
        if (n < 5) throw new Error('lost');
      });
    } finally {
      vi.restoreAllMocks();
    }
    // Half (the random draw) of 100, 200, 400, then 800 capped at MAX_BACKOFF_MS.
    expect(delays).toEqual([50, 100, 200, MAX_BACKOFF_MS / 2]);
  });

  it('stops once its time budget is spent', async () => {
    let clock = 1_000;
    vi.spyOn(Date, 'now').mockImplementation(() => clock);
    let calls = 0;
    try {
      const run = retryOnConflict({ attempts: 100, conflict: () => 'lost', backoffMs: 0, budgetMs: 30 }, async () => {
        calls++;
        clock += 20;
        throw new Error('lost');
      });
      await expect(run).rejects.toThrow('lost');
    } finally {
      vi.restoreAllMocks();
    }
    // 20 ms after the start it tries again; 40 ms after, past the budget, it stops.
    expect(calls).toBe(2);
  });

  it('makes CONFLICT_ATTEMPTS attempts unless told otherwise, retrying the lost races an attempt throws itself', async () => {
    let calls = 0;
    const error = await retryOnConflict({ conflict: lostRace, backoffMs: 0 }, async () => {
      calls++;
      throw new LostRace('the window changed');
    }).catch((e: unknown) => e);
    expect(calls).toBe(CONFLICT_ATTEMPTS);
    expect(error).toBeInstanceOf(LostRace);
    expect((error as RetriesExhausted).retryReason).toBe('the window changed');
    expect(lostRace(new Error('the window changed'))).toBeUndefined();
  });

  it('waits what `waitMs` says after each lost attempt, instead of the backoff', async () => {
    const delays: number[] = [];
    const realSetTimeout = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((run: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return realSetTimeout(run, 0);
    }) as typeof setTimeout);
    try {
      const waitMs = (n: number) => 2000 * n;
      await retryOnConflict({ attempts: 3, conflict: () => 'lost', waitMs }, async (n) => {
        if (n < 3) throw new Error('lost');
      });
    } finally {
      vi.restoreAllMocks();
    }
    expect(delays).toEqual([2000, 4000]);
  });
});

describe('transactionConflict', () => {
  it('names a failed condition or a conflict with its item, and nothing else', () => {
    expect(transactionConflict()(cancelled('None', 'ConditionalCheckFailed'))).toBe('ConditionalCheckFailed at item 1');
    expect(transactionConflict()(cancelled('TransactionConflict', 'None'))).toBe('TransactionConflict at item 0');
    expect(transactionConflict()(cancelled('None', 'ValidationError'))).toBeUndefined();
    expect(transactionConflict()(new Error('ConditionalCheckFailed'))).toBeUndefined();
  });

  it('counts failed conditions only at the items it names', () => {
    const items = [{}, named('countChanged', {}), {}];
    const of = (...codes: string[]) => {
      const error = cancelled(...codes);
      recordItemNames(error, items);
      return error;
    };
    const atCount = transactionConflict(['countChanged']);
    expect(atCount(of('ConditionalCheckFailed', 'None'))).toBeUndefined();
    expect(atCount(of('None', 'ConditionalCheckFailed'))).toBe('ConditionalCheckFailed at countChanged');
    expect(atCount(of('None', 'None', 'TransactionConflict'))).toBe('TransactionConflict at item 2');
  });
});
