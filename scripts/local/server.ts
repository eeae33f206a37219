import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Context } from 'aws-lambda';
import { routes } from '../../shared/routes.ts';
import { handlerFile, pathPattern, type Route } from '../../shared/http/route.ts';
import type { LambdaEvent, LambdaResult } from '../../shared/http/types.ts';
import { DOT_SEGMENT_REFUSED, hasDotSegment } from '../../shared/http/path-parameters.ts';
import { serveWeb } from './web.ts';
import { serviceHook } from './service-hook.ts';
import type { LocalHook } from './hook.ts';
import { readBoundedBody } from './bounded-body.ts';
import {
  API_GATEWAY_BODY_LIMIT_BYTES,
  LAMBDA_EVENT_LIMIT_BYTES,
  apiGatewayEvent,
  eventBytes,
  type HttpRequest,
} from './api-gateway-event.ts';

// The local stand-in for API Gateway (HTTP API, payload 2.0): each request becomes the event API Gateway would
// send (api-gateway-event.ts), and the same handler module a Lambda would run is invoked with it.
type Handler = (event: LambdaEvent, context: Context) => Promise<LambdaResult>;

const compiled = routes.map((route) => ({
  route,
  pattern: pathPattern(route.path),
  // API Gateway prefers the route with more literal segments: /oas/{orgId}/list over /oas/{orgId}/{oasId}.
  literals: route.path.split('/').filter((s) => s && !s.startsWith('{')).length,
}));

export function matchRoute(method: string, path: string): Route | undefined {
  return compiled
    .filter((c) => c.route.method === method && c.pattern.test(path))
    .sort((a, b) => b.literals - a.literals)[0]?.route;
}

const handlers = new Map<string, Promise<Handler>>();
function loadHandler(route: Route): Promise<Handler> {
  const file = handlerFile(route);
  let pending = handlers.get(file);
  if (!pending) {
    pending = import(`../../functions/${file}.ts`).then((module) => module.handler as Handler);
    handlers.set(file, pending);
  }
  return pending;
}

/** The request as API Gateway receives it: raw target, header pairs as sent. */
export function httpRequestOf(req: IncomingMessage, body: Buffer): HttpRequest {
  const headers: [string, string][] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
  return {
    method: req.method ?? 'GET',
    target: req.url ?? '/',
    headers,
    body,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    protocol: `HTTP/${req.httpVersion}`,
  };
}

export function lambdaContext(route: Route): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: route.operationId,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${route.operationId}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${route.operationId}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function send(res: ServerResponse, result: LambdaResult): void {
  const body = result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  const headers: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode ?? 200, { ...headers, 'content-length': String(body.length) });
  res.end(body);
}

/** The server's own answers carry the headers every operation's answer does (responseHeaders). */
const json = (statusCode: number, message: string): LambdaResult => ({
  statusCode,
  headers: { 'content-type': 'application/json', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' },
  body: JSON.stringify({ message }),
});

export async function handle(req: IncomingMessage, res: ServerResponse, hooks: LocalHook[] = []): Promise<void> {
  // Before URL parsing, which resolves dot segments (`%2e%2e` included) that API Gateway routes as they are.
  if (hasDotSegment((req.url ?? '/').split('?')[0])) return send(res, json(400, DOT_SEGMENT_REFUSED));
  const url = new URL(req.url ?? '/', 'http://localhost');
  for (const hook of hooks) if (await hook(req, res, url)) return;
  const route = matchRoute(req.method ?? 'GET', url.pathname);
  const body = await readBoundedBody(req, API_GATEWAY_BODY_LIMIT_BYTES);
  if (!route && (await serveWeb(req, res, url))) return; // the dashboard (web/dist), as CloudFront serves it on AWS
  if (!route) return send(res, json(404, `Not Found: no operation ${req.method} ${url.pathname}`));
  // API Gateway's answers, before any function runs: its body limit, then Lambda's event limit (a body that
  // arrives base64-encoded grows by a third on the way).
  if (!body) return send(res, json(413, 'Request Entity Too Large'));
  const event = apiGatewayEvent(httpRequestOf(req, body), route);
  if (eventBytes(event) > LAMBDA_EVENT_LIMIT_BYTES) return send(res, json(413, 'Request Entity Too Large'));
  const handler = await loadHandler(route);
  send(res, await handler(event, lambdaContext(route)));
}

/**
 * Requests Node's HTTP parser refuses before any handler runs (a URL and headers over 16 KB, an unknown method,
 * a NUL in a header...) get a JSON `{"message"}` like every other error, instead of Node's empty body.
 */
function answerMalformedRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const reasons: Record<string, string> = {
    HPE_HEADER_OVERFLOW: 'the request line and headers exceed 16 KB',
    HPE_INVALID_METHOD: 'unknown HTTP method',
    HPE_INVALID_HEADER_TOKEN: 'invalid character in a header name',
  };
  const body = JSON.stringify({
    message: `${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}: ${reasons[error.code ?? ''] ?? 'malformed HTTP request'}`,
  });
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\ncontent-type: application/json\r\n` +
      'x-content-type-options: nosniff\r\ncache-control: no-store\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** What `npm start` and the tests serve besides the API: add a module's hook here. */
export const defaultHooks: LocalHook[] = [serviceHook];

export function startLocalServer(port: number, host = '127.0.0.1', hooks: LocalHook[] = defaultHooks): Promise<Server> {
  const server = createServer((req, res) => {
    handle(req, res, hooks).catch((error) => {
      console.error(error);
      if (!res.headersSent) send(res, json(500, 'Internal error'));
    });
  });
  // Longer than clients' idle pools keep sockets (undici: 4 s), so a reused keep-alive socket is not closed under it.
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerMalformedRequest);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
