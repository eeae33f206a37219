import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Context } from 'aws-lambda';
import { pathPattern, routes, type Route } from '../../shared/routes.ts';
import type { LambdaEvent, LambdaResult } from '../../shared/http/types.ts';
import { serveWeb } from './web.ts';

// The local stand-in for API Gateway (HTTP API, payload 2.0): each request becomes the event API Gateway would
// send, and the same handler module a Lambda would run is invoked with it.
type Handler = (event: LambdaEvent, context: Context) => Promise<LambdaResult>;

const MAX_BODY_BYTES = 10 * 1024 * 1024; // API Gateway's payload limit
const TEXT_TYPES = /^(text\/|application\/(json|x-yaml|yaml|x-www-form-urlencoded|xml))/;

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
  let pending = handlers.get(route.handler);
  if (!pending) {
    pending = import(`../../functions/${route.handler}.ts`).then((module) => module.handler as Handler);
    handlers.set(route.handler, pending);
  }
  return pending;
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function toEvent(req: IncomingMessage, url: URL, body: Buffer, route: Route): LambdaEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && name !== 'cookie') headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const name of new Set(url.searchParams.keys())) query[name] = url.searchParams.getAll(name).join(','); // as API Gateway does
  const text = TEXT_TYPES.test(headers['content-type'] ?? 'application/json');
  const now = new Date();
  const method = req.method ?? 'GET';
  return {
    version: '2.0',
    routeKey: `${route.method} ${route.path}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: req.headers.cookie ? req.headers.cookie.split(/;\s*/) : undefined,
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: { method, path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(),
      routeKey: `${route.method} ${route.path}`,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: body.length ? (text ? body.toString('utf8') : body.toString('base64')) : undefined,
    isBase64Encoded: body.length > 0 && !text,
  };
}

function lambdaContext(route: Route): Context {
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

const json = (statusCode: number, message: string): LambdaResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message }),
});

export async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const route = matchRoute(req.method ?? 'GET', url.pathname);
  const body = await readBody(req);
  if (!route && (await serveWeb(req, res, url))) return; // the dashboard (web/dist), as CloudFront serves it on AWS
  if (!route) return send(res, json(404, `Not Found: no operation ${req.method} ${url.pathname}`));
  if (body === 'too-large') return send(res, json(413, `Request body exceeds ${MAX_BODY_BYTES} bytes`));
  const handler = await loadHandler(route);
  send(res, await handler(toEvent(req, url, body, route), lambdaContext(route)));
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
  const body = JSON.stringify({ message: `${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}: ${reasons[error.code ?? ''] ?? 'malformed HTTP request'}` });
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export function startLocalServer(port: number, host = '127.0.0.1'): Promise<Server> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      console.error(error);
      if (!res.headersSent) send(res, json(500, 'Internal error'));
    });
  });
  server.keepAliveTimeout = 5_000;
  server.on('clientError', answerMalformedRequest);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
