import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Route } from '../routes.ts';
import type { Caller } from './caller.ts';

/** What a handler receives: validated input and the authenticated caller. */
export interface OperationInput<Params = Record<string, string>, Query = Record<string, unknown>, Body = unknown> {
  route: Route;
  params: Params;
  query: Query;
  body: Body;
  /** The validated JSON body, for routes with `bodyAfterAccess`: call it once the caller's access is checked. */
  readBody: () => Promise<Body>;
  /** Raw body bytes, for routes with `rawBody`. */
  rawBody?: Buffer;
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

/** A handler result that is already an HTTP response (redirects, raw bodies): passed through as is. */
export class RawResponse {
  constructor(readonly response: APIGatewayProxyStructuredResultV2) {}
}

export interface PipelineContext extends Context {
  route: Route;
  preferredMediaType?: string;
  input: Partial<OperationInput>;
  startedAt: number;
}

export type LambdaEvent = APIGatewayProxyEventV2;
export type LambdaResult = APIGatewayProxyStructuredResultV2;
