import { describe, expect, it } from 'vitest';
import { validateDescription } from '../../shared/hosted-assets/openapi-validation.ts';
import { DESCRIPTION_VALIDATION } from '../../shared/limits.ts';

// API description validation runs in a worker thread with hard time and memory limits
// (docs/HOSTED-ASSETS.md, Uploading a description): the input limits alone do not bound every shape (one operation
// with thousands of parameters validates for many seconds).
const manyParameters = (count: number) =>
  JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'many parameters', version: '1' },
    paths: {
      '/x': {
        get: {
          parameters: Array.from({ length: count }, (_, i) => ({
            name: `q${i}`,
            in: 'query',
            schema: { type: 'string' },
          })),
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  });

describe('API description validation in a worker thread', () => {
  it('validates in the worker and answers what it found', async () => {
    await expect(validateDescription(manyParameters(3))).resolves.toEqual({
      text: manyParameters(3),
      format: 'json',
      openapiVersion: '3.0.3',
      routes: { paths: ['/x'], basePaths: [] },
    });
    const invalid = manyParameters(1).replace('"description":"ok"', '"nodescription":"ok"');
    await expect(validateDescription(invalid)).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/^Invalid OpenAPI description: .*description/),
    });
  });

  it('stops a validation that passes its time limit and answers 413 naming it', async () => {
    const text = manyParameters(1_500); // valid, and seconds of validation
    await expect(validateDescription(text, { ...DESCRIPTION_VALIDATION, timeoutMs: 50 })).rejects.toMatchObject({
      statusCode: 413,
      message: expect.stringMatching(/^Invalid OpenAPI description: validating it needs more than 0.05 s/),
    });
  });

  it('stops a validation that passes its memory limit and answers 413 naming it', async () => {
    await expect(
      validateDescription(manyParameters(10), { ...DESCRIPTION_VALIDATION, maxHeapMb: 4 }),
    ).rejects.toMatchObject({
      statusCode: 413,
      message: expect.stringMatching(/needs more than 4 MB of memory/),
    });
  });

  it('answers a reference chain too deep for the validator with a 400, not a crash', async () => {
    const count = 12_000;
    const schemas = Object.fromEntries(
      Array.from({ length: count }, (_, i) => [
        `C${i}`,
        { properties: { next: { $ref: `#/components/schemas/C${(i + 1) % count}` } } },
      ]),
    );
    const text = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'chain', version: '1' },
      paths: {},
      components: { schemas },
    });
    await expect(validateDescription(text)).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/^Invalid OpenAPI description: /),
    });
  });
});
