import { performance } from 'node:perf_hooks';
import { benchCaller, benchTenant, type BenchContext, type BenchSection } from './harness.ts';

// What an idle hosted-scan agent costs (docs/HOSTED-SCANS.md, Idle agents): the DynamoDB calls and capacity units of
// its polls as it makes them (a 25 s long poll answering nothing; a poll whose memory of the organization, the
// membership and the device has run out; one whose heartbeat write is due), and per hour. The `hosted` section
// measures the same beside its scans; this one alone takes half a minute.

/** The long poll's length: as the service's default (shared/perch/agents.ts, maxWaitMs). */
const POLL_SECONDS = 25;

type Call = (method: string, path: string, body?: unknown) => Promise<any>;
const sleep = (wait: number) => new Promise((resolve) => setTimeout(resolve, wait));

/** The figures of an idle agent of `orgId` (a device registered for it here), its requests made through `call`. */
export async function idleAgentCost(ctx: BenchContext, call: Call, orgId: string) {
  const { scopeObservers } = await import('../../shared/context/request-scope.ts');
  const { config } = await import('../../shared/config.ts');
  const { IDLE_HEARTBEAT_MS } = await import('../../shared/perch/repository.ts');
  const { db } = await import('../../shared/db/client.ts');
  const { keys } = await import('../../shared/db/keys.ts');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  ctx.progress('an idle agent: DynamoDB calls per poll, its memory running out, its heartbeat due, per hour');
  const device = (await call('POST', `/api/v1/org/${orgId}/perch/devices`, { name: 'bench idle' })).deviceId as string;
  const poll = (waitSeconds: number) =>
    call('POST', `/api/v1/org/${orgId}/perch/devices/${device}/poll`, { waitSeconds });
  const scopes: { dynamodbCalls: number; dynamodbRoundTrips?: number; readUnits?: number; writeUnits?: number }[] = [];
  const observer = (scope: (typeof scopes)[number]) => void scopes.push(scope);
  scopeObservers.push(observer);
  const observe = async (fn: () => Promise<unknown>) => {
    scopes.length = 0;
    await fn();
    const scope = scopes.find((s) => s.dynamodbCalls > 0) ?? scopes[0];
    return {
      calls: scope.dynamodbCalls,
      roundTrips: scope.dynamodbRoundTrips ?? 0,
      readUnits: scope.readUnits ?? 0,
      writeUnits: scope.writeUnits ?? 0,
    };
  };
  const memoryMs = config.perchPollMemorySeconds * 1000;
  const forgetting = async <T>(fn: () => Promise<T>): Promise<T> => {
    // This process's memory of the poll's items run out: PERCH_POLL_MEMORY_SECONDS set to 1 for this poll.
    config.perchPollMemorySeconds = 1;
    try {
      await sleep(1100);
      return await fn();
    } finally {
      config.perchPollMemorySeconds = memoryMs / 1000;
    }
  };
  try {
    await observe(() => poll(0));
    const warm = await observe(() => poll(0));
    const refreshed = await forgetting(() => observe(() => poll(0)));
    // A poll whose heartbeat write is due: the device's stored heartbeat set back past an idle device's interval.
    await db.send(
      new UpdateCommand({
        TableName: config.tableName,
        Key: keys.perchDevice(orgId, device),
        UpdateExpression: 'SET lastHeartbeatAt = :then',
        ExpressionAttributeValues: { ':then': Date.now() - IDLE_HEARTBEAT_MS - 1000 },
      }),
    );
    const heartbeatDue = await forgetting(() => observe(() => poll(0)));
    await observe(() => poll(0));
    const started = performance.now();
    const longPoll = await observe(() => poll(POLL_SECONDS));
    const pollMs = performance.now() - started;
    const pollsPerHour = 3_600_000 / pollMs;
    // Every k-th poll finds its memory run out (k = memory / poll time, rounded up), every j-th its heartbeat due.
    const refreshesPerHour = pollsPerHour / Math.max(1, Math.ceil(memoryMs / pollMs));
    const writesPerHour = pollsPerHour / Math.max(1, Math.ceil(IDLE_HEARTBEAT_MS / pollMs));
    const perHour = (figure: 'calls' | 'readUnits' | 'writeUnits') =>
      pollsPerHour * longPoll[figure] +
      refreshesPerHour * (refreshed[figure] - warm[figure]) +
      writesPerHour * (heartbeatDue[figure] - refreshed[figure]);
    return {
      'a poll answering at once (the rate limit and the queue version; the rest remembered)': warm,
      [`the same, its memory older than PERCH_POLL_MEMORY_SECONDS (${memoryMs / 1000} s): the organization, the membership and the device read in the same BatchGetItem`]:
        refreshed,
      [`the same, its heartbeat write due (an idle device's every ${IDLE_HEARTBEAT_MS / 1000} s)`]: heartbeatDue,
      [`one idle long poll (${Math.round(pollMs / 1000)} s; the queue read only when its version moved)`]: longPoll,
      'an idle agent per hour': {
        polls: Math.round(pollsPerHour),
        memoryReads: Math.round(refreshesPerHour),
        heartbeatWrites: Math.round(writesPerHour),
        calls: Math.round(perHour('calls')),
        readUnits: Math.round(perHour('readUnits') * 10) / 10,
        writeUnits: Math.round(perHour('writeUnits') * 10) / 10,
      },
    };
  } finally {
    scopeObservers.splice(scopeObservers.indexOf(observer), 1);
  }
}

const section: BenchSection = {
  name: 'idle-agent',
  async run(ctx) {
    const { orgId, token } = await benchTenant(ctx, 'idle-agent');
    const call: Call = benchCaller(ctx.baseUrl, token);
    return { idleAgent: await idleAgentCost(ctx, call, orgId) };
  },
};

export default section;
