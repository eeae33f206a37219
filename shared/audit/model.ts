// The audit log's model (docs/API.md, Activity log): the activity types, an entry as stored and who it names. Entries
// are written by entries.ts and read by repository.ts. Records, types and pure rules only (docs/LAYOUT.md, Layers): it
// imports the kernel and other resources' model.ts, never a repository.

import type { ActorNames } from '../context/caller.ts';

// User-activity types (docs/API.md, Activity log; and the public API's audit log).
export const ACTIVITY_TYPES = [
  'APPLICATION_ADDED',
  'APPLICATION_MODIFIED',
  'APPLICATION_REMOVED',
  'ENVIRONMENT_ADDED',
  'ENVIRONMENT_MODIFIED',
  'ENVIRONMENT_REMOVED',
  'ORGANIZATION_CONFIGURATION_MODIFIED',
  'ORGANIZATION_CONFIGURATION_REMOVED',
  'ORGANIZATION_POLICY_MODIFIED',
  'ORGANIZATION_POLICY_REMOVED',
  'APPLICATION_POLICY_MODIFIED',
  'TECH_FLAG_MODIFIED',
  'REPO_MODIFIED',
  'APPLICATIONS_ADDED_FOR_REPOS',
  'TEAM_ADDED',
  'TEAM_UPDATED',
  'TEAM_DELETED',
  'SCAN_STARTED',
  'SCAN_COMPLETED',
  'SCAN_ERRORED',
  'SCAN_REMOVED',
  'ALERT_RULE_TRIAGED',
  'API_KEY_ADDED',
  'API_KEY_REMOVED',
  'INVITE_USER',
  'USER_INVITE_REVOKED',
  'USER_JOINED_ORG',
  'USER_MODIFIED',
  'REMOVE_USER',
  'INTEGRATION_ADDED',
  'INTEGRATION_MODIFIED',
  'INTEGRATION_REMOVED',
  'ORG_SETTINGS_MODIFIED',
  'USER_JOINED_ORG',
  'USER_MODIFIED',
] as const;

export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export interface AuditRecord {
  id: string;
  userActivityType: ActivityType;
  organizationId: string;
  userId: string;
  userName: string;
  userEmail: string;
  /** A JSON object as a string, as the public API returns it. */
  payload: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/**
 * Who acts: a user with `known`, their name and e-mail (resolved before the entry is built: a request's Caller has
 * them from the pipeline, shared/context/caller.ts; a user written in the same transaction gives its own); or, with
 * `name`, an actor that is no user (the service itself). An actor with neither is recorded without a name.
 */
export interface AuditActor {
  userId: string;
  known?: ActorNames;
  name?: string;
}
