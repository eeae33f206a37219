import type { Route } from './route.ts';
import type { LambdaEvent } from './types.ts';

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
 * A WebSocket `$connect` as the HTTP API event of `route` (shared/perch/wake.ts, wakeChannelRoute), so that the
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
