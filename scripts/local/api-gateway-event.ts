import { randomUUID } from 'node:crypto';
import { apiGatewayPaths, gatewayParameterNames, pathPattern, type Route } from '../../shared/http/route.ts';
import type { LambdaEvent } from '../../shared/http/types.ts';
import { routes } from '../../shared/routes.ts';

// The event API Gateway (HTTP API, payload format 2.0) sends a Lambda for an HTTP request, built the way API
// Gateway builds it: the local server (server.ts) and the Lambda-event harness (test/integration/lambda-events)
// both use this, so what `npm start` hands the handlers is what AWS hands them.
//  - rawPath and requestContext.http.path are percent-decoded; pathParameters are decoded and named after the
//    route's API Gateway template (infra/stack.ts registers apiGatewayPaths), not the route table's names;
//  - repeated query parameters and repeated headers arrive comma-joined; header names lower-case; cookies apart;
//  - bodies of non-text content types (application/x-yaml, form encoding, protobuf...) arrive base64-encoded.

/** Lambda's limit for a synchronous invocation's event (6 MB): a larger request never reaches the function. */
export const LAMBDA_EVENT_LIMIT_BYTES = 6 * 1024 * 1024;
/** API Gateway HTTP API's request body limit. */
export const API_GATEWAY_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/** The content types API Gateway passes as text; every other body is base64-encoded (isBase64Encoded). */
const TEXT_TYPES = /^(text\/[^;]*|application\/(json|[\w.+-]+\+json|javascript|xml|[\w.+-]+\+xml))\s*(;|$)/i;

export interface HttpRequest {
  method: string;
  /** The request target as sent: path and query string, percent-encoded. */
  target: string;
  /** Header name/value pairs as received (repeats included). */
  headers: [string, string][];
  body: Buffer;
  sourceIp: string;
  protocol?: string;
}

/** Percent-decodes what is well-formed and leaves malformed escapes (`%zz`, a lone `%`) as they are. */
export function decodePath(path: string): string {
  return path.replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run; // an invalid UTF-8 sequence
    }
  });
}

export function apiGatewayEvent(request: HttpRequest, route: Route): LambdaEvent {
  const [rawPath, rawQueryString = ''] = splitTarget(request.target);
  // Maps, then entries: a header or parameter named `constructor` or `__proto__` is one like any other.
  const headerValues = new Map<string, string>();
  const cookies: string[] = [];
  for (const [rawName, value] of request.headers) {
    const name = rawName.toLowerCase();
    const earlier = headerValues.get(name);
    if (name === 'cookie') cookies.push(...value.split(/;\s*/));
    else headerValues.set(name, earlier === undefined ? value : `${earlier},${value}`);
  }
  const headers: Record<string, string> = Object.fromEntries(headerValues);
  const searchParams = new URLSearchParams(rawQueryString);
  const query: Record<string, string> = Object.fromEntries(
    [...new Set(searchParams.keys())].map((name) => [name, searchParams.getAll(name).join(',')]),
  );
  const values = pathPattern(route.path).exec(rawPath)?.slice(1) ?? [];
  const gatewayNames = gatewayParameterNames(route, routes);
  const pathParameters = Object.fromEntries(gatewayNames.map((name, i) => [name, decodePath(values[i] ?? '')]));
  const text = TEXT_TYPES.test(headers['content-type'] ?? '');
  const routeKey = `${route.method} ${apiGatewayPaths(routes).get(route) ?? route.path}`;
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: decodePath(rawPath),
    rawQueryString,
    cookies: cookies.length ? cookies : undefined,
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: gatewayNames.length ? pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0],
      http: {
        method: request.method,
        path: decodePath(rawPath),
        protocol: request.protocol ?? 'HTTP/1.1',
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: request.body.length ? (text ? request.body.toString('utf8') : request.body.toString('base64')) : undefined,
    isBase64Encoded: request.body.length > 0 && !text,
  };
}

function splitTarget(target: string): [string, string?] {
  const at = target.indexOf('?');
  return at === -1 ? [target] : [target.slice(0, at), target.slice(at + 1)];
}

/** The event's size as Lambda counts it (its JSON): above LAMBDA_EVENT_LIMIT_BYTES API Gateway cannot invoke. */
export const eventBytes = (event: LambdaEvent) => Buffer.byteLength(JSON.stringify(event));
