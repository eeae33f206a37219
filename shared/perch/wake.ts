import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Caller, KeyScope } from '../context/caller.ts';
import { createCaller } from '../identity/caller.ts';
import { logger } from '../context/logger.ts';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { collect, queryItems } from '../db/query.ts';
import { config } from '../config.ts';
import { notFound } from '../errors.ts';
import { drivenDevice, MAX_DEVICES_PER_ORG } from './repository.ts';

// The wake channel (docs/HOSTED-SCANS.md, Idle agents): an idle agent keeps a WebSocket open (API Gateway's WebSocket
// API on AWS, the local server's /api/v1/perch/wake locally) and polls every WAKE_POLL_SECONDS instead of long-polling;
// a run queued, ended or stopped posts `{"type":"wake"}` to its organization's connections, and the agent polls at once.
// A connection keeps the session it was opened with: a wake reaches it only while that session would still be let in
// (the member not removed, the key not revoked, write:device still held); otherwise the wake closes it instead.

/** An agent with the channel open polls this often, as a fallback for a wake that did not arrive. */
export const WAKE_POLL_SECONDS = 300;
/** A connection item outlives API Gateway's longest connection (2 hours): a missed disconnect leaves nothing for long. */
const CONNECTION_TTL_SECONDS = 3 * 3600;
/** A wake, its read of the connections and all its posts, ends within this: the mutation that wakes waits no longer. */
const WAKE_POST_TIMEOUT_MS = 2_000;

/** $connect: the device's connection recorded in its organization's partition (404 unless the caller drives it). */
export async function connectWakeChannel(caller: Caller, orgId: string, deviceId: string, connectionId: string) {
  if (!(await drivenDevice(caller, orgId, deviceId)))
    throw notFound(`device ${deviceId} not found in organization ${orgId}: register again`);
  await db.send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...keys.perchWakeConnection(orgId, deviceId),
        ...keys.perchWakeConnectionIndex(connectionId),
        entity: 'perchWakeConnection',
        organizationId: orgId,
        deviceId,
        connectionId,
        session: sessionOf(caller),
        connectedAt: Date.now(),
        expiresAt: Math.floor(Date.now() / 1000) + CONNECTION_TTL_SECONDS,
      },
    }),
  );
}

/** $disconnect: the connection's item deleted, found by its id (all the event tells), unless a reconnect replaced it. */
export async function disconnectWakeChannel(connectionId: string): Promise<void> {
  const { gsi1pk } = keys.perchWakeConnectionIndex(connectionId);
  const [item] = await collect(queryItems({ index: 'gsi1', partition: gsi1pk, pageLimit: 1 }));
  if (item) await deleteConnection(item.organizationId as string, item.deviceId as string, connectionId);
}

/** Deletes the device's connection item while it is still `connectionId`'s (a newer connection's stays). */
async function deleteConnection(orgId: string, deviceId: string, connectionId: string): Promise<void> {
  await db
    .send(
      new DeleteCommand({
        TableName: config.tableName,
        Key: keys.perchWakeConnection(orgId, deviceId),
        ConditionExpression: 'connectionId = :connectionId',
        ExpressionAttributeValues: { ':connectionId': connectionId },
      }),
    )
    .catch((error: Error) => {
      if (error.name !== 'ConditionalCheckFailedException') throw error;
    });
}

/** The session a connection was opened with: what its access is checked again from at each wake. */
interface ConnectionSession {
  userId: string;
  apiKeyId: string;
  scope?: KeyScope;
  launchedFor?: string;
}

const sessionOf = ({ userId, apiKeyId, scope, launchedFor }: Caller): ConnectionSession => ({
  userId,
  apiKeyId,
  ...(scope ? { scope } : {}),
  ...(launchedFor ? { launchedFor } : {}),
});

interface Connection {
  deviceId: string;
  connectionId: string;
  /** Absent on connections recorded before sessions were: such a connection is closed, and the agent reconnects. */
  session?: ConnectionSession;
}

/** The organization's connections: one per device (its newest), so at most one per device it may have. */
async function connectionsOf(orgId: string): Promise<Connection[]> {
  const { pk, skPrefix } = keys.perchWakeConnectionsOfOrg(orgId);
  const found: Connection[] = [];
  for await (const item of queryItems({ partition: pk, skPrefix, pageLimit: MAX_DEVICES_PER_ORG })) {
    found.push({
      deviceId: item.deviceId as string,
      connectionId: item.connectionId as string,
      session: item.session as ConnectionSession | undefined,
    });
    if (found.length >= MAX_DEVICES_PER_ORG) break;
  }
  return found;
}

/**
 * The connections whose session the organization still lets in as it lets in the poll (write:device), and the others.
 * One access read per distinct session (usually one: an organization's agents share a user and key).
 */
async function sortedByAccess(orgId: string, connections: Connection[]) {
  const accessBySession = new Map<string, Promise<boolean>>();
  const allowed = (session: ConnectionSession) => {
    const id = JSON.stringify([session.userId, session.apiKeyId, session.scope ?? null, session.launchedFor ?? null]);
    let pending = accessBySession.get(id);
    if (!pending)
      accessBySession.set(
        id,
        (pending = createCaller(session, 'write:device')
          .access(orgId)
          .then((access) => access.granted)),
      );
    return pending;
  };
  const verdicts = await Promise.all(connections.map((c) => (c.session ? allowed(c.session) : false)));
  return {
    open: connections.filter((_, i) => verdicts[i]),
    closing: connections.filter((_, i) => !verdicts[i]),
  };
}

let client: ApiGatewayManagementApiClient | undefined;
const managementClient = (endpoint: string) =>
  (client ??= new ApiGatewayManagementApiClient({
    region: config.region,
    endpoint,
    // The local channel (scripts/local/wake-channel.ts) checks no signature: fixed fake credentials locally.
    ...(config.dynamodbEndpoint ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  }));

const WAKE = new TextEncoder().encode(JSON.stringify({ type: 'wake' }));

/** Rejects once `signal` aborts (handled here: a race it loses leaves no unhandled rejection). */
function rejectedOnAbort(signal: AbortSignal): Promise<never> {
  const rejected = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(new Error('timed out')), { once: true }),
  );
  rejected.catch(() => undefined);
  return rejected;
}

/** 410 from the management API: the connection is gone already. */
const gone = (error: unknown) =>
  (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 410;

/** Posts the wake to a connection; a connection that is gone has its item deleted. */
async function postWake(endpoint: string, orgId: string, connection: Connection, abortSignal: AbortSignal) {
  try {
    await managementClient(endpoint).send(
      new PostToConnectionCommand({ ConnectionId: connection.connectionId, Data: WAKE }),
      { abortSignal },
    );
  } catch (error) {
    if (!gone(error)) throw error;
    await deleteConnection(orgId, connection.deviceId, connection.connectionId);
  }
}

/** Closes a connection whose session is no longer let in (its $disconnect follows), and deletes its item. */
async function closeConnection(endpoint: string, orgId: string, connection: Connection, abortSignal: AbortSignal) {
  try {
    await managementClient(endpoint).send(new DeleteConnectionCommand({ ConnectionId: connection.connectionId }), {
      abortSignal,
    });
  } catch (error) {
    if (!gone(error)) throw error;
  }
  await deleteConnection(orgId, connection.deviceId, connection.connectionId);
}

/**
 * Posts a wake to each of the organization's open connections whose session is still let in, and closes the others:
 * the read of them, of their access and all the posts within WAKE_POST_TIMEOUT_MS. Never throws: a wake that fails
 * leaves the agents to their fallback poll, and the caller's change is made already.
 */
export async function postWakes(orgId: string): Promise<void> {
  const endpoint = config.wakeEndpoint;
  if (!endpoint) return;
  const abortSignal = AbortSignal.timeout(WAKE_POST_TIMEOUT_MS);
  try {
    const { open, closing } = await Promise.race([
      connectionsOf(orgId).then((connections) => sortedByAccess(orgId, connections)),
      rejectedOnAbort(abortSignal),
    ]);
    await Promise.all([
      ...open.map((connection) => postWake(endpoint, orgId, connection, abortSignal)),
      ...closing.map((connection) => closeConnection(endpoint, orgId, connection, abortSignal)),
    ]);
  } catch (error) {
    logger.warn('agents not woken', { orgId, reason: (error as Error).message });
  }
}
