import middy from '@middy/core';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { Route } from '../routes.ts';
import { runInScope } from './request-scope.ts';
import { prefetcher, type OperationReads } from './prefetch.ts';
import {
  admission,
  authentication,
  bodyParsing,
  contentNegotiation,
  errorResponses,
  inputValidation,
  organizationAuthorization,
  requestLogging,
  responseEncoding,
  responseHeaders,
} from './middlewares.ts';
import type { LambdaEvent, LambdaResult, OperationInput, PipelineContext, RawResponse } from './types.ts';

/**
 * Turns an operation's implementation into its Lambda handler, with the whole request pipeline from the route
 * table entry. A handler file is then just: `export const handler = operation(getUserRoute, async (input) => ...)`
 * (the route itself, not its id: the function's bundle then holds no other route).
 * `prefetch` names reads the operation makes before its authorization decision beyond those its path implies
 * (prefetch.ts): they go in the request's first round trip.
 */
export function operation<Params = Record<string, string>, Query = Record<string, unknown>, Body = unknown>(
  route: Route,
  implementation: (input: OperationInput<Params, Query, Body>) => Promise<object | RawResponse | void>,
  options: { prefetch?: OperationReads } = {},
): (event: LambdaEvent, context: Context) => Promise<LambdaResult> {
  const pipeline = middy<LambdaEvent, LambdaResult, Error, PipelineContext>()
    .use(responseHeaders())
    .use(requestLogging())
    .use(errorResponses())
    .use(contentNegotiation(route))
    .use(authentication(route))
    .use(admission(route, prefetcher(route, options.prefetch)))
    .use(inputValidation(route))
    .use(organizationAuthorization(route))
    .use(bodyParsing(route))
    .use(responseEncoding(route))
    .handler(async (_event, context) => {
      const result = await implementation({
        route,
        ...context.input,
        mediaType: context.preferredMediaType,
        remainingMs: () => context.getRemainingTimeInMillis?.() ?? Infinity,
      } as OperationInput<Params, Query, Body>);
      return (result ?? {}) as unknown as LambdaResult;
    });
  return (event, context) => {
    (context as PipelineContext).route = route;
    return runInScope({ requestId: event.requestContext?.requestId ?? randomUUID(), dynamodbCalls: 0 }, () =>
      pipeline(event, context as PipelineContext),
    );
  };
}
