import * as z from 'zod';
import { pageSizeParam, pageTokenParam, uuidSchema } from './lists.ts';

// Request inputs of the team operations (SPEC 2.5, 4.4): the route table names these schemas, shared/teams.ts takes
// their outputs. Kept free of storage imports so the route table stays light.

/** Team names: non-empty after trimming, unique per organization (case-insensitively). */
export const teamNameSchema = z.string().trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters');

/** A list of ids; absent or null is the empty list (replace-all: no members, no applications); duplicates count once. */
const idList = () =>
  z
    .array(uuidSchema())
    .max(1000, 'must have at most 1000 ids')
    .nullish()
    .transform((ids) => [...new Set(ids ?? [])].sort());

/** organization.CreateTeamRequest. */
export const createTeamBody = z.object({
  name: teamNameSchema,
  organizationId: uuidSchema().nullish(),
  userIds: idList(),
  applicationIds: idList(),
});
export type CreateTeamBody = z.output<typeof createTeamBody>;

/** organization.UpdateTeamRequest: the team's whole new state (see the route's description). */
export const updateTeamBody = z.object({
  teamId: uuidSchema().nullish(),
  organizationId: uuidSchema().nullish(),
  name: teamNameSchema,
  userIds: idList(),
  applicationIds: idList(),
});
export type UpdateTeamBody = z.output<typeof updateTeamBody>;

/** organization.UpdateApplicationTeamRequest. */
export const updateApplicationTeamBody = z.object({
  applicationId: uuidSchema(),
  teamId: uuidSchema().nullish(),
});
export type UpdateApplicationTeamBody = z.output<typeof updateApplicationTeamBody>;

export const listTeamsForOrgQuery = z.object({
  pageToken: pageTokenParam(),
  pageSize: pageSizeParam(),
  search: z
    .string()
    .max(255, 'must be at most 255 characters')
    .optional()
    .describe('Case-insensitive team-name pattern: matches names containing it; `*` stands for any characters.'),
});
export type ListTeamsForOrgQuery = z.output<typeof listTeamsForOrgQuery>;

export const listTeamsForUserQuery = z.object({ pageToken: pageTokenParam(), pageSize: pageSizeParam() });
export type ListTeamsForUserQuery = z.output<typeof listTeamsForUserQuery>;
