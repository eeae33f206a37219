import { AsyncLocalStorage } from 'node:async_hooks';

// Per-request facts that code deep in the call stack needs without threading them through every signature:
// the request id (for logs) and a count of DynamoDB calls (logged per request, read by the benchmark).
export interface RequestScope {
  requestId: string;
  dynamodbCalls: number;
  /** DynamoDB read capacity units consumed by the request's reads (the benchmark reports them). */
  readUnits?: number;
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
