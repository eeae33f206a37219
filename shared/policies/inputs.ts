import * as z from 'zod/mini';
import { booleanParam, caseInsensitiveEnum, pageSizeParam, pageTokenParam, v2PageParam } from '../lists.ts';

// Inputs of the scan policy operations, as the route table declares them. Only zod here: the route table is read
// by the CDK stack and the generators too. Which plugin ids and tech flags exist is checked by the domain
// (policies.ts), which names the unknown ones.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** Organization policy names (public description): capitals, digits and `_`, at most 64. */
export const policyNameSchema = schema(() =>
  z
    .string()
    .check(
      z.maxLength(64, 'must be at most 64 characters'),
      z.regex(/^[A-Z0-9_]+$/, 'must contain only capital letters, digits and _'),
    ),
);

const MAX_PLUGINS = 1000;
const MAX_FLAGS = 200;

const flagsMap = schema(() =>
  z.record(z.string().check(z.maxLength(100)), z.boolean({ error: 'must be true or false' })),
);

const pluginSchema = schema(() =>
  z.object({
    pluginId: z.string().check(z.maxLength(16), z.regex(/^[0-9-]+$/, 'must be a plugin id such as 40012')),
    enabled: z._default(z.optional(z.boolean()), false),
  }),
);

/** `scanpolicy.UpsertOrganizationScanPolicyRequest`: the policy's plugins (those not listed are disabled) and tech flags. */
export const upsertOrganizationPolicyBody = schema(() =>
  z.object({
    scanPolicy: z.object({
      name: policyNameSchema,
      displayName: z.optional(z.string().check(z.maxLength(255))),
      description: z.optional(z.string().check(z.maxLength(1024))),
      plugins: z._default(z.optional(z.array(pluginSchema).check(z.maxLength(MAX_PLUGINS))), []),
      techFlags: z.optional(
        flagsMap.check(z.refine((flags) => Object.keys(flags).length <= MAX_FLAGS, `at most ${MAX_FLAGS} flags`)),
      ),
    }),
  }),
);
export type UpsertOrganizationPolicy = z.output<typeof upsertOrganizationPolicyBody>['scanPolicy'];

export const listOrganizationPoliciesQuery = schema(() =>
  z.object({
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    page: v2PageParam(),
    sortField: caseInsensitiveEnum(['name', 'displayName']),
    sortDir: caseInsensitiveEnum(['asc', 'desc']),
  }),
);
export type ListOrganizationPoliciesQuery = z.output<typeof listOrganizationPoliciesQuery>;

/** `?policyName=` of the built-in policy read and of assign (default DEFAULT). */
export const policyNameQuery = schema(() =>
  z.object({
    policyName: z._default(z.optional(z.string().check(z.maxLength(64, 'must be at most 64 characters'))), 'DEFAULT'),
  }),
);

export const applicationPolicyQuery = schema(() =>
  z.object({
    policyName: z._default(z.optional(z.string().check(z.maxLength(64, 'must be at most 64 characters'))), ''),
    policyConfigured: booleanParam(false),
  }),
);

export const togglePluginParams = schema(() =>
  z.object({
    pluginId: z
      .string()
      .check(
        z.maxLength(16, 'must be at most 16 characters'),
        z.regex(/^[0-9-]*$/, 'must be a plugin id such as 40012'),
      ),
    toggle: z.enum(['enabled', 'disabled'], { error: 'must be enabled or disabled' }),
  }),
);

/**
 * PUT .../policy/flags: the public description's body is the flag map itself; stackhawk-mcp sends
 * `{techFlags: {<flag>: bool}}`. Both are accepted.
 */
export const techFlagsBody = schema(() =>
  z
    .pipe(
      z.union([z.object({ techFlags: flagsMap }), flagsMap], {
        error: 'must be {"techFlags": {"<flag>": true|false}} or {"<flag>": true|false}',
      }),
      z.transform((body) =>
        'techFlags' in body && typeof body.techFlags === 'object'
          ? (body.techFlags as Record<string, boolean>)
          : (body as Record<string, boolean>),
      ),
    )
    .check(z.refine((flags) => Object.keys(flags).length <= MAX_FLAGS, `at most ${MAX_FLAGS} flags`)),
);
