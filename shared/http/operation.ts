import middy from '@middy/core';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { Route } from './route.ts';
import { runInScope } from '../context/request-scope.ts';
import { prefetcher } from './prefetch.ts';
import { type OperationReads } from '../db/query.ts';
import {
  admission,
  auditActor,
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
import type { AnswerOf, LambdaEvent, LambdaResult, PipelineContext, RouteInput } from './types.ts';

/**
 * Turns an operation's implementation into its Lambda handler, with the whole request pipeline from the route
 * table entry. A handler file is then just: `export const handler = operation(getUserRoute, async (input) => ...)`
 * (the route itself, not its id: the function's bundle then holds no other route). The input's `params`, `query`
 * and `body` are typed by the route's path and schemas (RouteInput), so an implementation that disagrees with its
 * route does not compile; the cast below is the one place the validated values meet those types.
 * `prefetch` names reads the operation makes before its authorization decision beyond those its path implies
 * (prefetch.ts): they go in the request's first round trip.
 */
export function operation<R extends Route>(
  route: R,
  implementation: (input: RouteInput<R>) => Promise<AnswerOf<R>>,
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
    .use(auditActor(route))
    .use(bodyParsing(route))
    .use(responseEncoding(route))
    .handler(async (_event, context) => {
      const result = await implementation({
        route,
        ...context.input,
        mediaType: context.preferredMediaType,
        remainingMs: () => context.getRemainingTimeInMillis?.() ?? Infinity,
      } as RouteInput<R>);
      return (result ?? {}) as unknown as LambdaResult;
    });
  return (event, context) => {
    (context as PipelineContext).route = route;
    return runInScope({ requestId: event.requestContext?.requestId ?? randomUUID(), dynamodbCalls: 0 }, () =>
      pipeline(event, context as PipelineContext),
    );
  };
}
