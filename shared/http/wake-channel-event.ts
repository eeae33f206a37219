import * as z from 'zod/mini';
import type { Route } from './route.ts';
import type { LambdaEvent } from './types.ts';

/**
 * `$connect` as an operation of its own (not in the route table: it has no HTTP route): authenticated and authorized as
 * the poll is (a bearer token, write:device in the organization, the caller driving the device), with the
 * organization and the device from the connection's query string (wakeChannelEvent, below).
 */
export const wakeChannelRoute = {
  operationId: 'connectWakeChannel',
  method: 'GET',
  path: '/api/v1/org/{orgId}/perch/devices/{deviceId}/wake',
  tag: 'Perch',
  summary: "Open an agent's wake channel (WebSocket $connect)",
  auth: 'bearer',
  permission: 'write:device',
  // Set from the connection's request context (wakeChannelEvent), never from what the agent sent.
  query: z.object({ connectionId: z.string().check(z.minLength(1), z.maxLength(128)) }),
  response: 'empty',
} satisfies Route;

/** What API Gateway's WebSocket API hands `$connect` and `$disconnect` (the fields read here). */
export interface WebSocketEvent {
  headers?: Record<string, string | undefined>;
  queryStringParameters?: Record<string, string | undefined> | null;
  requestContext: {
    connectionId: string;
    requestId?: string;
    identity?: { sourceIp?: string; userAgent?: string };
  };
}

/**
 * A WebSocket `$connect` as the HTTP API event of `route` (wakeChannelRoute), so that the
 * operation pipeline authenticates, rate-limits and authorizes it as it does the poll: the organization and the device
 * from the query string (`?orgId=&deviceId=`) as path parameters, the connection's id as the only query parameter.
 */
export function wakeChannelEvent(event: WebSocketEvent, route: Route): LambdaEvent {
  const query = event.queryStringParameters ?? {};
  const segment = (name: string) => encodeURIComponent(query[name] ?? '');
  const rawPath = route.path.replace('{orgId}', segment('orgId')).replace('{deviceId}', segment('deviceId'));
  const headers = Object.fromEntries(
    Object.entries(event.headers ?? {}).flatMap(([name, value]) =>
      value === undefined ? [] : [[name.toLowerCase(), value]],
    ),
  );
  const { connectionId, requestId = connectionId, identity } = event.requestContext;
  const now = new Date();
  return {
    version: '2.0',
    routeKey: `${route.method} ${route.path}`,
    rawPath,
    rawQueryString: `connectionId=${encodeURIComponent(connectionId)}`,
    headers,
    queryStringParameters: { connectionId },
    requestContext: {
      accountId: 'websocket',
      apiId: 'websocket',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0],
      http: {
        method: route.method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: identity?.sourceIp ?? '127.0.0.1',
        userAgent: identity?.userAgent ?? headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: `${route.method} ${route.path}`,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
}
