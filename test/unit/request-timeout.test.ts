import { describe, expect, it } from 'vitest';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { errorResponses } from '../../shared/http/middlewares.ts';
import type { LambdaEvent, LambdaResult, PipelineContext } from '../../shared/http/types.ts';

// A request that runs out of time (middy's early timeout, set from the Lambda context's remaining time) is the
// service being busy, not a bug: 503 with Retry-After, never the 500 of an unexpected error.

const event = { requestContext: { requestId: 'r-1' } } as unknown as LambdaEvent;
const contextWith = (remainingMs: number) =>
  ({ getRemainingTimeInMillis: () => remainingMs }) as unknown as PipelineContext & Context;
const slowHandler = (ms: number) =>
  middy<LambdaEvent, LambdaResult, Error, PipelineContext>()
    .use(errorResponses())
    .handler(() => new Promise<LambdaResult>((resolve) => setTimeout(() => resolve({ statusCode: 200 }), ms)));

describe('a request that runs out of time', () => {
  it('answers 503 with Retry-After and says what happened', async () => {
    const result = (await slowHandler(1_000)(event, contextWith(50))) as LambdaResult;
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['Retry-After']).toBe('5');
    expect(JSON.parse(result.body as string).message).toMatch(/^Service Unavailable: the request did not finish within the time/);
  });

  it('answers as usual when the handler finishes in time', async () => {
    const result = (await slowHandler(10)(event, contextWith(5_000))) as LambdaResult;
    expect(result.statusCode).toBe(200);
  });
});
