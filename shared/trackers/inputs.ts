import * as z from 'zod/mini';
import { uuidSchema } from '../lists.ts';
import { displayableText } from '../input/names.ts';
import { TRACKER_KINDS, AUTO_PROMOTE_SEVERITIES } from './model.ts';

// Request inputs of the tracker connection operations (docs/TRACKERS.md). Kept free of storage imports so the route
// table stays light.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();
export const MAX_TRACKERS_PER_ORG = 10;
export const MAX_CLOSE_AFTER_SCANS = 20;
export const GITHUB_API_URL = 'https://api.github.com';

const urlSchema = () =>
  z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(2048), displayableText());
const nameSchema = () => z.string().check(z.trim(), z.maxLength(255), displayableText());
/** A Jira project key (PROJ) or numeric id. */
const projectSchema = () =>
  z.string().check(z.regex(/^([A-Za-z][A-Za-z0-9_]{0,49}|\d{1,18})$/, 'must be a Jira project key or id'));
const issueTypeSchema = () =>
  z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(60), displayableText());
const repositorySchema = () =>
  z.string().check(z.regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, 'must be owner/repository (as on GitHub)'));
const emailSchema = () => z.string().check(z.regex(/^[^\s@]{1,128}@[^\s@]{1,253}$/, 'must be an e-mail address'));
/** An API token, a personal access token: printable ASCII, so it can travel in a header. */
const tokenSchema = () =>
  z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(4096),
      z.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
    );
const autoPromoteSchema = () =>
  z.strictObject({
    minSeverity: z.enum(AUTO_PROMOTE_SEVERITIES, { error: `must be one of ${AUTO_PROMOTE_SEVERITIES.join(', ')}` }),
    environmentIds: z._default(
      z.pipe(
        z.array(uuidSchema()).check(z.maxLength(100, 'must have at most 100 ids')),
        z.transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))].sort()),
      ),
      [],
    ),
  });
const closeAfterScansSchema = () =>
  z
    .number()
    .check(
      z.int('must be an integer'),
      z.minimum(1, 'must be at least 1'),
      z.maximum(MAX_CLOSE_AFTER_SCANS, `must be at most ${MAX_CLOSE_AFTER_SCANS}`),
    );

// Tracker bodies carry credentials and outbound addresses: strict, as the other security-sensitive bodies
// (docs/API.md, Errors), so that a misspelt field is refused rather than ignored.

/** POST /api/v1/org/{orgId}/integrations/trackers (createTracker). */
export const createTrackerBody = schema(() =>
  z
    .strictObject({
      kind: z.enum(TRACKER_KINDS, { error: `must be one of ${TRACKER_KINDS.join(', ')}` }),
      name: z.optional(nameSchema()),
      baseUrl: z.optional(urlSchema()),
      project: z.optional(projectSchema()),
      issueType: z.optional(issueTypeSchema()),
      repository: z.optional(repositorySchema()),
      email: z.optional(emailSchema()),
      token: tokenSchema(),
      autoPromote: z.nullish(autoPromoteSchema()),
      closeAfterScans: z.optional(closeAfterScansSchema()),
      enabled: z.optional(z.boolean()),
    })
    .check(
      z.refine((b) => b.kind === 'github' || b.baseUrl !== undefined, {
        message: "Jira's site URL is required",
        path: ['baseUrl'],
      }),
      z.refine((b) => b.kind === 'github' || b.project !== undefined, {
        message: 'the Jira project is required',
        path: ['project'],
      }),
      z.refine((b) => b.kind !== 'jira' || b.email !== undefined, {
        message: "Jira Cloud's API tokens go with the account's e-mail",
        path: ['email'],
      }),
      z.refine((b) => b.kind !== 'github' || b.repository !== undefined, {
        message: 'owner/repository is required',
        path: ['repository'],
      }),
    ),
);
export type CreateTrackerBody = z.output<typeof createTrackerBody>;

/** PUT /api/v1/org/{orgId}/integrations/trackers/{trackerId} (updateTracker): the fields given change. */
export const updateTrackerBody = schema(() =>
  z.strictObject({
    name: z.optional(nameSchema()),
    baseUrl: z.optional(urlSchema()),
    project: z.optional(projectSchema()),
    issueType: z.optional(issueTypeSchema()),
    repository: z.optional(repositorySchema()),
    email: z.optional(emailSchema()),
    token: z.optional(tokenSchema()),
    autoPromote: z.nullish(autoPromoteSchema()),
    closeAfterScans: z.optional(closeAfterScansSchema()),
    enabled: z.optional(z.boolean()),
  }),
);
export type UpdateTrackerBody = z.output<typeof updateTrackerBody>;
