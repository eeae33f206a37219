import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { PathParameterName, Route } from './route.ts';
import type { Caller } from '../context/caller.ts';
import type { RawResponse } from '../context/responses.ts';
import type { paths } from '../../scanner/src/api/schema.gen.ts';

/** What a handler receives: validated input and the authenticated caller. */
export interface OperationInput<
  Params = Record<string, string>,
  Query = Record<string, unknown>,
  Body = unknown,
  LateBody = Body,
  RawBody = Buffer | undefined,
> {
  route: Route;
  params: Params;
  query: Query;
  body: Body;
  /** The validated JSON body, for routes with `bodyAfterAccess`: call it once the caller's access is checked. */
  readBody: () => Promise<LateBody>;
  /** Raw body bytes, for routes with `rawBody`. */
  rawBody: RawBody;
  headers: Record<string, string | undefined>;
  caller: Caller;
  sourceIp: string;
  /** The response media type content negotiation chose (one of the route's mediaTypes). */
  mediaType?: string;
  /**
   * The time the function has left (Lambda's getRemainingTimeInMillis): work that may run long (an import) ends
   * within it with its own answer, before the pipeline answers 503 at the end (errorResponses).
   */
  remainingMs: () => number;
}

/** What a field of the route holds once validated: its schema's output, `Otherwise` when the route has none. */
type Validated<R, Field extends string, Otherwise> = R extends { [K in Field]: infer Schema extends z.ZodMiniType }
  ? z.output<Schema>
  : Otherwise;

/**
 * A route's path parameters: one string per `{name}` of its path (the `...Id` ones checked as UUIDs), typed by its
 * `params` schema where it has one.
 */
export type ParamsOf<R extends Route> = Omit<
  Record<PathParameterName<R['path']>, string>,
  keyof Validated<R, 'params', object>
> &
  Validated<R, 'params', unknown>;

/** The validated body: on a `bodyAfterAccess` route it is only read through `readBody()`. */
type BodyOf<R extends Route> = R extends { bodyAfterAccess: true } ? undefined : Validated<R, 'body', undefined>;

/**
 * What the handler of route R receives: its path parameters, query and body typed by the route's own path and
 * schemas, so that a handler that reads what its route does not declare does not compile.
 */
export type RouteInput<R extends Route> = OperationInput<
  ParamsOf<R>,
  Validated<R, 'query', Record<never, never>>,
  BodyOf<R>,
  Validated<R, 'body', undefined>,
  R extends { rawBody: object } ? Buffer : undefined
>;

/** What a handler returns: the response message's fields, a ready response, or nothing (an empty 200). */
export type HandlerResult = object | RawResponse | void;

/** Route R's operation in openapi.json (the scanner's schema.gen.ts, generated from it: types only). */
type OperationOf<R extends Route> = R['path'] extends keyof paths
  ? Extract<paths[R['path']][Lowercase<R['method']>], object>
  : never;

/**
 * The fields of a JSON answer as a handler gives them to the encoder (responseEncoding): any of them, each a string
 * or a number where the JSON has a string (the encoder writes 64-bit integers and times as protobuf's JSON does),
 * one of its values where the JSON has a public enum (schema.gen.ts renders it as a union of string literals: a
 * value outside it does not compile), nested messages and lists alike.
 */
export type Encodable<T> = T extends string
  ? string extends T
    ? string | number
    : T
  : T extends readonly (infer E)[]
    ? readonly Encodable<E>[]
    : T extends object
      ? { [K in keyof T]?: Encodable<T[K]> }
      : T;

/**
 * What route R's handler answers: its 200 JSON answer as openapi.json describes it (made from the route's response
 * message), so that a handler answering another shape (fields the message lacks, a message where a list goes) does
 * not compile; a ready response, or nothing (the message's defaults), besides. A route whose answer is one field of
 * its message (`responseField`), without a JSON 200, or not in openapi.json yet answers HandlerResult.
 */
export type AnswerOf<R extends Route> = R extends { responseField: string }
  ? HandlerResult
  : [OperationOf<R>] extends [never]
    ? HandlerResult
    : OperationOf<R> extends { responses: { 200: { content: { 'application/json': infer J } } } }
      ? Encodable<J> | RawResponse | void
      : HandlerResult;

export interface PipelineContext extends Context {
  route: Route;
  preferredMediaType?: string;
  input: Partial<OperationInput>;
  startedAt: number;
}

export type LambdaEvent = APIGatewayProxyEventV2;
export type LambdaResult = APIGatewayProxyStructuredResultV2;
