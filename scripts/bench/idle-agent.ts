import { performance } from 'node:perf_hooks';
import { benchCaller, benchTenant, type BenchContext, type BenchSection } from './harness.ts';

// What an idle hosted-scan agent costs (docs/HOSTED-SCANS.md, Idle agents): the DynamoDB calls and capacity units of
// its polls as it makes them (a 25 s long poll answering nothing; a poll whose memory of the organization, the
// membership and the device has run out; one whose heartbeat write is due), and per hour: with its wake channel open
// (a poll every WAKE_POLL_SECONDS, each its memory run out and its heartbeat due, and the channel's $connect and
// $disconnect once per API Gateway's longest connection, 2 hours), and without (long polls). The `hosted` section
// measures the same beside its scans; this one alone takes half a minute.

/** The long poll's length: as the service's default (shared/perch/agents.ts, maxWaitMs). */
const POLL_SECONDS = 25;
/** API Gateway ends a WebSocket connection after 2 hours: the agent connects again (its keepalive costs nothing). */
const CONNECTION_SECONDS = 2 * 3600;

type Call = (method: string, path: string, body?: unknown) => Promise<any>;
const sleep = (wait: number) => new Promise((resolve) => setTimeout(resolve, wait));

/** The figures of an idle agent of `orgId` (a device registered for it here), its requests made through `call`. */
export async function idleAgentCost(ctx: BenchContext, call: Call, orgId: string, token: string) {
  const { scopeObservers } = await import('../../shared/context/request-scope.ts');
  const { config } = await import('../../shared/config.ts');
  const { IDLE_HEARTBEAT_MS } = await import('../../shared/perch/repository.ts');
  const { db } = await import('../../shared/db/client.ts');
  const { keys } = await import('../../shared/db/keys.ts');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const { WAKE_POLL_SECONDS } = await import('../../shared/perch/wake.ts');
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
    const { connect, disconnect } = await wakeChannelCost(ctx, { orgId, deviceId: device, token }, observe);
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
    const wakePolls = 3600 / WAKE_POLL_SECONDS;
    const connections = 3600 / CONNECTION_SECONDS;
    const wakePerHour = (figure: 'calls' | 'readUnits' | 'writeUnits') =>
      wakePolls * heartbeatDue[figure] + connections * (connect[figure] + disconnect[figure]);
    return {
      'a poll answering at once (the rate limit and the queue version; the rest remembered)': warm,
      [`the same, its memory older than PERCH_POLL_MEMORY_SECONDS (${memoryMs / 1000} s): the organization, the membership and the device read in the same BatchGetItem`]:
        refreshed,
      [`the same, its heartbeat write due (an idle device's every ${IDLE_HEARTBEAT_MS / 1000} s)`]: heartbeatDue,
      [`one idle long poll (${Math.round(pollMs / 1000)} s; the queue read only when its version moved)`]: longPoll,
      "the wake channel's $connect (the rate limit, the poll's reads, the connection's Put)": connect,
      "the wake channel's $disconnect (the connection found by gsi1, deleted)": disconnect,
      [`an idle agent per hour, its wake channel open (a poll every ${WAKE_POLL_SECONDS} s)`]: {
        polls: wakePolls,
        heartbeatWrites: wakePolls,
        connectionWrites: 2 * connections,
        calls: Math.round(wakePerHour('calls')),
        readUnits: Math.round(wakePerHour('readUnits') * 10) / 10,
        writeUnits: Math.round(wakePerHour('writeUnits') * 10) / 10,
      },
      'an idle agent per hour without a wake channel (long polls)': {
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

/** The DynamoDB figures of the wake channel's $connect and $disconnect (the local server's, as `npm start` serves it). */
async function wakeChannelCost(
  ctx: BenchContext,
  { orgId, deviceId, token }: { orgId: string; deviceId: string; token: string },
  observe: (fn: () => Promise<unknown>) => Promise<Record<'calls' | 'roundTrips' | 'readUnits' | 'writeUnits', number>>,
) {
  const { default: WebSocket } = await import('ws');
  let socket: InstanceType<typeof WebSocket> | undefined;
  const url = `${ctx.baseUrl.replace(/^http/, 'ws')}/api/v1/perch/wake?orgId=${orgId}&deviceId=${deviceId}`;
  const connect = await observe(
    () =>
      new Promise<void>((resolve, reject) => {
        socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
        socket.on('open', () => resolve());
        socket.on('error', reject);
      }),
  );
  const disconnect = await observe(async () => {
    socket!.close();
    // The local channel runs $disconnect once the socket closed: its scope is observed when it ends.
    await new Promise((resolve) => setTimeout(resolve, 500));
  });
  return { connect, disconnect };
}

const section: BenchSection = {
  name: 'idle-agent',
  async run(ctx) {
    const { orgId, token } = await benchTenant(ctx, 'idle-agent');
    const call: Call = benchCaller(ctx.baseUrl, token);
    return { idleAgent: await idleAgentCost(ctx, call, orgId, token) };
  },
};

export default section;
