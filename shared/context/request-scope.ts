import { AsyncLocalStorage } from 'node:async_hooks';

// Per-request facts that code deep in the call stack needs without threading them through every signature:
// the request id (for logs), counts of DynamoDB calls and round trips (logged per request, read by the benchmark)
// and the reads the pipeline issued before the handler asked for them (shared/db/prefetch.ts).
export interface RequestScope {
  requestId: string;
  dynamodbCalls: number;
  /** Waves of DynamoDB calls: a call that starts while another is in flight shares its round trip. */
  dynamodbRoundTrips?: number;
  /** DynamoDB calls in flight now (to count round trips). */
  dynamodbInFlight?: number;
  /** DynamoDB read capacity units consumed by the request's reads (the benchmark reports them). */
  readUnits?: number;
  /** DynamoDB write capacity units consumed by the request's writes (the benchmark reports them). */
  writeUnits?: number;
  /** The plan a list request chose (shared/applications/list-plan.ts), named in the request's log line. */
  listPlan?: { kind: string };
  /** Reads issued early, by what they read (shared/db/prefetch.ts); each is taken once. */
  prefetched?: Map<string, Promise<unknown>>;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Called with each request's scope when it ends (the benchmark counts DynamoDB calls per request with it). */
export const scopeObservers: ((scope: RequestScope) => void)[] = [];

export async function runInScope<T>(scope: RequestScope, fn: () => Promise<T>): Promise<T> {
  try {
    return await storage.run(scope, fn);
  } finally {
    for (const observe of scopeObservers) observe(scope);
  }
}

export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

/** Records the plan a list request chose, for its log line (docs/API.md, How a list is planned). */
export function recordListPlan(plan: { kind: string }): void {
  const scope = storage.getStore();
  if (scope) scope.listPlan = plan;
}
