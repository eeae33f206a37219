import * as z from 'zod/mini';
import { booleanParam } from '../lists.ts';
import { DESCRIPTION_LIMITS } from '../limits.ts';
import { UUID } from '../input/uuid.ts';

// The inputs of the hosted-asset operations (hosted API descriptions, global configuration), as the route table
// declares them. Only zod here: the route table is read by the CDK stack and the generators too.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/**
 * Largest accepted description upload: 4 MiB. A Lambda request event is at most 6 MB and API Gateway may
 * base64-encode the body (4/3 larger), which leaves room for the rest of the event (docs/HOSTED-ASSETS.md).
 */
export const MAX_DESCRIPTION_BYTES = DESCRIPTION_LIMITS.maxBytes;
export const DESCRIPTION_CONTENT_TYPES = ['text/plain', 'application/x-yaml', 'application/yaml', 'application/json'];

/** Whether a hosted-asset GET answers with a redirect to the presigned URL (docs/HOSTED-ASSETS.md). */
export const redirectParam = (fallback: boolean) =>
  booleanParam(fallback).check(
    z.describe(
      `true: 307 redirect to the presigned URL (the body still holds the JSON hosted-asset response); false: 200 with that JSON. Default ${fallback}.`,
    ),
  );

/** `app_oas.MapRepositoryOASSpecToApplicationRequest`. `include` absent reads false, as proto3 JSON omits it. */
export const mappingRequestSchema = schema(() =>
  z.object({
    appId: z.optional(z.string().check(z.regex(UUID, 'must be a UUID'))),
    include: z._default(z.optional(z.boolean()), false),
    oasId: z.string().check(z.regex(UUID, 'must be a UUID')),
    repositoryId: z.string().check(z.regex(UUID, 'must be a UUID')),
    sourceRootPath: z._default(z.optional(z.string().check(z.maxLength(1024))), ''),
  }),
);
export type MappingRequest = z.output<typeof mappingRequestSchema>;
