import * as z from 'zod/mini';
import { pageSizeParam, pageTokenParam, uuidSchema } from '../lists.ts';
import { MAX_PATTERN_LENGTH } from '../limits.ts';
import { displayableText } from '../input/names.ts';

// Request inputs of the team operations (docs/API.md, Teams): the route table names these schemas, shared/teams.ts
// takes their outputs. Kept free of storage imports so the route table stays light.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** Team names: non-empty after trimming, unique per organization (case-insensitively). */
export const teamNameSchema = schema(() =>
  z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'must not be empty'),
      z.maxLength(255, 'must be at most 255 characters'),
      displayableText(),
    ),
);

/** A list of ids; absent or null is the empty list (replace-all: no members, no applications); duplicates count once. */
const idList = () =>
  z.pipe(
    z.nullish(z.array(uuidSchema()).check(z.maxLength(1000, 'must have at most 1000 ids'))),
    z.transform((ids) => [...new Set(ids ?? [])].sort()),
  );

/** organization.CreateTeamRequest. */
export const createTeamBody = schema(() =>
  z.object({
    name: teamNameSchema,
    organizationId: z.nullish(uuidSchema()),
    userIds: idList(),
    applicationIds: idList(),
  }),
);
export type CreateTeamBody = z.output<typeof createTeamBody>;

/** organization.UpdateTeamRequest: the team's whole new state (see the route's description). */
export const updateTeamBody = schema(() =>
  z.object({
    teamId: z.nullish(uuidSchema()),
    organizationId: z.nullish(uuidSchema()),
    name: teamNameSchema,
    userIds: idList(),
    applicationIds: idList(),
  }),
);
export type UpdateTeamBody = z.output<typeof updateTeamBody>;

/** organization.UpdateApplicationTeamRequest. */
export const updateApplicationTeamBody = schema(() =>
  z.object({
    applicationId: uuidSchema(),
    teamId: z.nullish(uuidSchema()),
  }),
);
export type UpdateApplicationTeamBody = z.output<typeof updateApplicationTeamBody>;

export const listTeamsForOrgQuery = schema(() =>
  z.object({
    pageToken: pageTokenParam(),
    pageSize: pageSizeParam(),
    search: z
      .optional(z.string().check(z.maxLength(MAX_PATTERN_LENGTH, `must be at most ${MAX_PATTERN_LENGTH} characters`)))
      .check(
        z.describe(
          `Case-insensitive team-name pattern: matches names containing it; \`*\` stands for any characters (at most ${MAX_PATTERN_LENGTH} characters).`,
        ),
      ),
  }),
);
export type ListTeamsForOrgQuery = z.output<typeof listTeamsForOrgQuery>;

export const listTeamsForUserQuery = schema(() => z.object({ pageToken: pageTokenParam(), pageSize: pageSizeParam() }));
export type ListTeamsForUserQuery = z.output<typeof listTeamsForUserQuery>;
