import { jsonResponse } from '../context/responses.ts';
import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import preferredMediaTypes from 'negotiator/lib/mediaType.js';
import type * as z from 'zod/mini';
import {
  HttpError,
  badRequest,
  notAcceptable,
  payloadTooLarge,
  tooManyRequests,
  unauthorized,
  unsupportedMediaType,
} from '../errors.ts';
import { verifyAccessToken, InvalidTokenError } from '../auth/tokens.ts';
import { hashApiKey, normalizedApiKey } from '../auth/api-keys.ts';
import { admit } from './rate-limit.ts';
import { rateLimitKeys } from '../db/keys.ts';
import { config } from '../config.ts';
import { MAX_JSON_BODY_BYTES, MAX_JSON_BODY_DEPTH } from '../limits.ts';
import { pathParameterNames, type Route } from './route.ts';
import { DOT_SEGMENT_REFUSED, hasDotSegment, pathParameterReader } from './path-parameters.ts';
import { currentScope } from '../context/request-scope.ts';
import { prefetchesSettled } from '../db/prefetch.ts';
import { cancelledItems } from '../db/items.ts';
import type { prefetcher } from './prefetch.ts';
import { toJsonObject, toProtobuf } from '../proto/encoding.ts';
import { createCaller } from '../identity/caller.ts';
import { actorNames } from '../identity/user-repository.ts';
import { logger } from '../context/logger.ts';
import { type LambdaEvent, type LambdaResult, type PipelineContext } from './types.ts';
import { RawResponse } from '../context/responses.ts';
import { UUID } from '../input/uuid.ts';

// The request pipeline, applied the same way to every operation by operation.ts, in this order:
// response headers -> logging -> error responses -> content negotiation -> authentication -> admission (rate limit and prefetch, one
// round trip) -> input validation (path, query, body size) -> organization authorization -> the audit actor's names ->
// body parsing -> (handler) -> response encoding.
type Middleware = middy.MiddlewareObj<LambdaEvent, LambdaResult, Error, PipelineContext>;
type Prefetch = ReturnType<typeof prefetcher>;

const JSON_TYPE = 'application/json';
const PROTOBUF_TYPE = 'application/x-protobuf';

/**
 * Headers of every answer, errors and raw answers (CSV, redirects) included, set last: `nosniff` (a browser never
 * reads an answer as another type than it says, e.g. a JSON error quoting input as HTML), and `no-store` unless the
 * operation chose its caching (answers hold tokens and an organization's data: no cache keeps them).
 */
export function responseHeaders(): Middleware {
  const set = (request: middy.Request<LambdaEvent, LambdaResult, Error, PipelineContext>) => {
    const response = request.response;
    if (!response || typeof response !== 'object') return;
    const headers = { ...(response.headers ?? {}) };
    const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    headers['x-content-type-options'] = 'nosniff';
    if (!names.has('cache-control')) headers['cache-control'] = 'no-store';
    response.headers = headers;
  };
  return { after: set, onError: set };
}

function refuseDotSegments(path: string): void {
  if (hasDotSegment(path)) throw badRequest(DOT_SEGMENT_REFUSED);
}

export function requestLogging(): Middleware {
  const finish = (request: middy.Request<LambdaEvent, LambdaResult, Error, PipelineContext>) => {
    logger.info('request', {
      method: request.event.requestContext.http.method,
      path: request.event.rawPath,
      operationId: request.context.route.operationId,
      status: request.response?.statusCode,
      durationMs: Date.now() - request.context.startedAt,
      dynamodbCalls: currentScope()?.dynamodbCalls,
      dynamodbRoundTrips: currentScope()?.dynamodbRoundTrips,
      listPlan: currentScope()?.listPlan,
      userId: request.context.input.caller?.userId,
    });
  };
  return {
    before: (request) => {
      request.context.startedAt = Date.now();
      request.context.input = {};
    },
    after: finish,
    onError: finish,
  };
}

/** Seconds a client waits before retrying a request the busy service refused. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/** Network failures of a call to DynamoDB or S3 (Node's codes; the SDK retried them already). */
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);
const THROTTLING = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'SlowDown',
]);

/**
 * Why a failure is the service being busy rather than a bug, or undefined: the function's time ran out (middy
 * answers just before Lambda would stop it), a call cut at its deadline or timed out, or DynamoDB or S3 answered
 * with a fault of their own or throttled (after the SDK's retries). The client may retry such a request later.
 */
function busyReason(error: Error & { code?: string; $fault?: string; cause?: { package?: string } }) {
  if (error.name === 'TimeoutError' && error.cause?.package === '@middy/core')
    return 'the request did not finish within the time the API gives it';
  if (error.name === 'AbortError' || error.name === 'TimeoutError' || NETWORK_CODES.has(error.code ?? ''))
    return 'a call to the database or storage did not finish in time';
  if (THROTTLING.has(error.name) || error.$fault === 'server') return 'the database or storage is busy';
  return undefined;
}

/**
 * Every failure becomes `{"message": ...}` with its status; the service being busy answers 503 with Retry-After
 * (busyReason); anything else unexpected is logged and answers 500.
 */
export function errorResponses(): Middleware {
  return {
    onError: (request) => {
      const error = request.error as Error & { statusCode?: number; cause?: { package?: string } };
      const busy = error instanceof HttpError ? undefined : busyReason(error);
      if (error instanceof HttpError) {
        request.response = jsonResponse(error.statusCode, { message: error.message }, error.headers);
      } else if (error.cause?.package === '@middy/http-json-body-parser') {
        request.response = jsonResponse(400, { message: 'request body is not valid JSON' });
      } else if (error.name === 'TransactionCanceledException' || error.name === 'ConditionalCheckFailedException') {
        // Concurrent requests kept changing the same items until the operation's retries ran out: nothing was
        // written (a transaction is all or nothing), so the client may simply retry.
        logger.info('write lost to concurrent changes', { reasons: cancelledItems(error) });
        request.response = jsonResponse(409, {
          message:
            'Conflict: other requests changed the same data at the same time; nothing was changed, retry the request',
        });
      } else if (busy) {
        logger.warn('service busy', { reason: busy, error });
        request.response = jsonResponse(
          503,
          { message: `Service Unavailable: ${busy} (the service is busy); retry the request in a few seconds` },
          { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
        );
      } else {
        logger.error('unexpected error', { error });
        request.response = jsonResponse(500, {
          message: `Internal error (request ${request.event.requestContext.requestId})`,
        });
      }
    },
  };
}

/**
 * The response's media type from the Accept header (406 when it allows none the route answers). negotiator's
 * media-type module alone, as @middy/http-content-negotiation uses it: that middleware also loads negotiator's
 * charset, encoding and language parsers (5 KB of every bundle) that no operation calls.
 */
export function contentNegotiation(route: Route): Middleware {
  const available = route.mediaTypes ?? [JSON_TYPE, PROTOBUF_TYPE];
  return {
    before: (request) => {
      const [preferred] = preferredMediaTypes(request.event.headers.accept, available);
      if (!preferred) throw notAcceptable(`Not Acceptable: this operation answers ${available.join(' or ')}`);
      request.context.preferredMediaType = preferred;
    },
  };
}

function bearerToken(event: LambdaEvent): string | undefined {
  const header = event.headers.authorization;
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/** Verifies the bearer token (no database call) and builds the caller; login is authenticated by its handler. */
export function authentication(route: Route): Middleware {
  return {
    before: async (request) => {
      if (route.auth !== 'bearer') return;
      const token = bearerToken(request.event);
      if (!token)
        throw unauthorized('Unauthorized: send Authorization: Bearer <access token> (GET /api/v1/auth/login)');
      try {
        const claims = await verifyAccessToken(token);
        request.context.input.caller = createCaller(claims, route.permission);
      } catch (error) {
        if (!(error instanceof InvalidTokenError)) throw error;
        logger.info('rejected token', { reason: error.message });
        throw unauthorized();
      }
    },
  };
}

/**
 * The request's first round trip: the rate-limit update (docs/API.md, Limits: per user for every authenticated
 * operation; per API key and per source address for login) and, beside it, the reads the operation needs before its
 * authorization decision (prefetch.ts). A refused request counts against the limit as any other, and gets its 429
 * before anything it read is used.
 */
export function admission(route: Route, prefetch: Prefetch): Middleware {
  return {
    before: async (request) => {
      const { caller } = request.context.input;
      prefetch(request.event, {
        caller,
        headers: request.event.headers,
        query: request.event.queryStringParameters ?? {},
      });
      const subjects =
        route.auth === 'bearer'
          ? [{ key: rateLimitKeys.user(caller!.userId), limit: config.rateLimitPerMinute }]
          : route.auth === 'apiKey'
            ? [
                {
                  key: rateLimitKeys.loginSource(request.event.requestContext.http.sourceIp),
                  limit: config.loginSourceRateLimitPerMinute,
                },
                {
                  key: rateLimitKeys.loginKey(hashApiKey(normalizedApiKey(request.event.headers['x-apikey']))),
                  limit: config.loginRateLimitPerMinute,
                },
              ]
            : // An operation without credentials (acceptInvitation): per source address, as login's.
              [
                {
                  key: rateLimitKeys.anonymousSource(request.event.requestContext.http.sourceIp),
                  limit: config.loginSourceRateLimitPerMinute,
                },
              ];
      const decisions = await Promise.all(subjects.map(({ key, limit }) => admit(key, limit)));
      const refused = decisions.flatMap((d) => (d.admitted ? [] : [d.retryAfterSeconds]));
      if (refused.length) {
        await prefetchesSettled();
        throw tooManyRequests(Math.max(...refused));
      }
    },
  };
}

function describeIssues(error: z.core.$ZodError, prefix: string): string {
  const described = (path: PropertyKey[], message: string) => {
    const named = [prefix, ...path.map(String)].filter(Boolean).join('.');
    return named ? `${named}: ${message}` : message;
  };
  return error.issues
    .flatMap((issue) =>
      // A strict object's fields it does not take (security-sensitive bodies): each named, as a misspelling would be.
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => described([...issue.path, key], 'unknown field'))
        : [described(issue.path, issue.message)],
    )
    .join('; ');
}

function decodePathSegment(name: string, value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw badRequest(`${name}: malformed percent-escape in the path`);
  }
}

/** API Gateway leaves a malformed percent-escape (`%ZZ`, a lone `%`) in the decoded parameter: the same 400. */
function refuseMalformedEscape(name: string, value: string): string {
  if (/%(?![0-9a-fA-F]{2})/.test(value)) throw badRequest(`${name}: malformed percent-escape in the path`);
  return value;
}

/** The body's size in bytes, without decoding it. */
const bodyBytes = (event: LambdaEvent) =>
  event.isBase64Encoded ? Buffer.byteLength(event.body!, 'base64') : Buffer.byteLength(event.body!, 'utf8');

/**
 * The body's size (413, before anything else), then path parameters and query, validated against the route's schemas
 * (400 naming what was wrong). The body itself is parsed only after the caller is authorized (bodyParsing).
 */
export function inputValidation(route: Route): Middleware {
  const names = pathParameterNames(route.path);
  const readPath = pathParameterReader(route);
  return {
    before: async (request) => {
      const { event, context } = request;
      // The size first: a body over the limit is refused whatever else the request gets wrong.
      const maxBytes =
        route.rawBody?.maxBytes ?? (route.body ? (route.maxBodyBytes ?? MAX_JSON_BODY_BYTES) : undefined);
      if (maxBytes !== undefined && event.body && bodyBytes(event) > maxBytes)
        throw payloadTooLarge(`request body exceeds ${maxBytes} bytes`);
      refuseDotSegments(event.rawPath);
      const params: Record<string, string> = {};
      // API Gateway's values are decoded already: never decode them twice; a hand-made event's raw segments are not.
      const { values, decoded } = readPath(event);
      names.forEach((name, i) => {
        params[name] = decoded
          ? refuseMalformedEscape(name, values[i] ?? '')
          : decodePathSegment(name, values[i] ?? '');
      });
      for (const name of names) {
        if (name.endsWith('Id') && !route.params?.shape[name] && !UUID.test(params[name])) {
          throw badRequest(`${name}: must be a UUID`);
        }
      }
      if (route.params) {
        const parsed = route.params.safeParse(params);
        if (!parsed.success) throw badRequest(describeIssues(parsed.error, ''));
        Object.assign(params, parsed.data);
      }
      context.input.params = params;

      const query = route.query ? route.query.safeParse(event.queryStringParameters ?? {}) : undefined;
      if (query && !query.success) throw badRequest(describeIssues(query.error, ''));
      context.input.query = (query?.data as Record<string, unknown>) ?? {};

      if (route.rawBody) {
        const contentType = (event.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        // An entry `type/*` takes every subtype.
        const accepted = route.rawBody.contentTypes.some(
          (t) => t === contentType || (t.endsWith('/*') && contentType.startsWith(t.slice(0, -1))),
        );
        if (!accepted) {
          throw unsupportedMediaType(`Content-Type must be one of ${route.rawBody.contentTypes.join(', ')}`);
        }
      }
      context.input.headers = event.headers;
      context.input.sourceIp = event.requestContext.http.sourceIp;
    },
  };
}

/** Whether a parsed JSON value nests arrays and objects deeper than `max` (iterative: no stack to overflow). */
function deeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(node))
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * The request body, once the caller is authorized: raw bytes for `rawBody` routes, otherwise JSON validated
 * against the route's schema (400 naming what was wrong). Routes with `bodyAfterAccess` (every body above
 * MAX_JSON_BODY_BYTES) get `readBody` instead, which their handler calls after checking access to the target
 * (the application, the scan), so a caller without access never gets a large body parsed.
 */
export function bodyParsing(route: Route): Middleware {
  // Bodies are parsed as JSON whatever their Content-Type (curl -d sends form encoding); the option exists in the
  // package's code but not its type declarations.
  const jsonParser = httpJsonBodyParser({ disableContentTypeCheck: true } as {
    disableContentTypeError?: boolean;
  }) as unknown as Middleware;
  const parse = async (request: middy.Request<LambdaEvent, LambdaResult, Error, PipelineContext>) => {
    if (request.event.body) await jsonParser.before!(request);
    if (deeperThan(request.event.body, MAX_JSON_BODY_DEPTH))
      throw badRequest(`body: nested deeper than ${MAX_JSON_BODY_DEPTH} levels`);
    const parsed = route.body!.safeParse(request.event.body ?? {});
    if (!parsed.success) throw badRequest(describeIssues(parsed.error, 'body'));
    return parsed.data;
  };
  return {
    before: async (request) => {
      const { event, context } = request;
      if (route.rawBody) {
        context.input.rawBody = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
      } else if (route.body && route.bodyAfterAccess) {
        let body: Promise<unknown> | undefined;
        context.input.readBody = () => (body ??= parse(request));
      } else if (route.body) {
        context.input.body = await parse(request);
      }
    },
  };
}

/** Operations addressed by `{orgId}` need the route's permission in that organization before they run. */
export function organizationAuthorization(route: Route): Middleware {
  return {
    before: async (request) => {
      const orgId = request.context.input.params?.orgId;
      if (route.auth === 'bearer' && route.permission && orgId) await request.context.input.caller!.authorize(orgId);
    },
  };
}

/**
 * An operation that writes an audit entry (its route's `audit`) gets its caller's name and e-mail before it runs, so
 * that building the entry reads nothing (shared/audit/entries.ts): from the user item the admission's round trip
 * read (prefetch.ts), which stays there for the operation's own read of the user, if it makes one.
 */
export function auditActor(route: Route): Middleware {
  return {
    before: async (request) => {
      const { caller } = request.context.input;
      if (route.audit && caller) caller.known = await actorNames(caller.userId);
    },
  };
}

/** Encodes the handler's result through the route's protobuf message, as JSON or protobuf per Accept. */
export function responseEncoding(route: Route): Middleware {
  return {
    after: (request) => {
      const result = request.response as unknown;
      if (result instanceof RawResponse) {
        request.response = result.response;
      } else if (route.response === 'empty') {
        request.response = { statusCode: 200, headers: {}, body: '' };
      } else if (route.response === 'noContent') {
        request.response = { statusCode: 204, headers: {}, body: '' };
      } else if (request.context.preferredMediaType === PROTOBUF_TYPE) {
        request.response = {
          statusCode: 200,
          headers: { 'content-type': PROTOBUF_TYPE },
          body: Buffer.from(toProtobuf(route.response, result as object)).toString('base64'),
          isBase64Encoded: true,
        };
      } else {
        const json = toJsonObject(route.response, result as object);
        request.response = jsonResponse(200, route.responseField ? json[route.responseField] : json);
      }
    },
  };
}
