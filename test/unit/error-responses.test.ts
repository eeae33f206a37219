import { describe, expect, it, vi } from 'vitest';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { errorResponses } from '../../shared/http/middlewares.ts';
import { payloadTooLarge } from '../../shared/errors.ts';
import type { LambdaEvent, LambdaResult, PipelineContext } from '../../shared/http/types.ts';

// What errorResponses answers for each kind of failure: the service being busy (the function's time running out, a
// call cut or timed out, DynamoDB's own faults and throttling) is a 503 a client may retry, never a 500.

const event = { requestContext: { requestId: 'request-1' } } as unknown as LambdaEvent;
const contextWith = (remainingMs: number) =>
  ({ getRemainingTimeInMillis: () => remainingMs }) as unknown as PipelineContext & Context;

async function answerOf(fail: () => Promise<never>, remainingMs = 60_000) {
  const handler = middy<LambdaEvent, LambdaResult, Error, PipelineContext>().use(errorResponses()).handler(fail);
  const writes = [
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true),
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true),
  ];
  try {
    const result = await handler(event, contextWith(remainingMs));
    return { status: result.statusCode, headers: result.headers ?? {}, message: JSON.parse(result.body!).message };
  } finally {
    for (const write of writes) write.mockRestore();
  }
}

const sdkMetadata = { $metadata: { httpStatusCode: 500 }, message: 'failed' };

describe('error responses', () => {
  it('answers 503 with Retry-After when the function’s time runs out before the operation ends', async () => {
    const out = await answerOf(() => new Promise<never>(() => undefined), 50);
    expect(out.status).toBe(503);
    expect(out.headers['Retry-After']).toBe('5');
    expect(out.message).toBe(
      'Service Unavailable: the request did not finish within the time the API gives it (the service is busy); retry the request in a few seconds',
    );
  });

  it.each<[string, () => Error, RegExp]>([
    ['DynamoDB’s own fault', () => new InternalServerError(sdkMetadata), /the database or storage is busy/],
    ['throttling', () => new ProvisionedThroughputExceededException(sdkMetadata), /the database or storage is busy/],
    [
      'a call cut at its deadline',
      () => Object.assign(new Error('Request aborted'), { name: 'AbortError' }),
      /did not finish in time/,
    ],
    [
      'a connection reset',
      () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      /did not finish in time/,
    ],
  ])('answers 503 for %s', async (_, error, message) => {
    const out = await answerOf(() => Promise.reject(error()));
    expect(out.status).toBe(503);
    expect(out.headers['Retry-After']).toBe('5');
    expect(out.message).toMatch(message);
  });

  it('keeps an operation’s own answer, and 500 for a bug (a client fault of DynamoDB included)', async () => {
    expect(await answerOf(() => Promise.reject(payloadTooLarge('too large')))).toMatchObject({
      status: 413,
      message: 'too large',
    });
    expect(await answerOf(() => Promise.reject(new TypeError('x is undefined')))).toMatchObject({
      status: 500,
      message: 'Internal error (request request-1)',
    });
    const missingTable = new ResourceNotFoundException({ ...sdkMetadata, $metadata: { httpStatusCode: 400 } });
    expect((await answerOf(() => Promise.reject(missingTable))).status).toBe(500);
  });
});
