import { getApplication, getApplicationIncludingDeleting } from './application-repository.ts';
import { getEnvironment, getEnvironmentIncludingDeleting } from './environment-repository.ts';
import type { Membership, Caller } from '../context/caller.ts';
import { HttpError, notFound, unauthorized } from '../errors.ts';
import { canSeeTeamResource, type ApplicationRecord } from './model.ts';

/**
 * The application an operation addresses by `{appId}`, if the caller may use the operation on it:
 * - unknown, being deleted, or in an organization the caller is not a member of: 404 (no existence oracle);
 * - the caller lacks the route's permission or the organization's plan has no API access: 401 (docs/API.md, Errors);
 * - the application belongs to a team the caller is not in, when the operation is team-restricted: 401
 *   (docs/API.md, Team rules).
 * `deniedStatus` lets the OpenAPI upload answer 403 instead (docs/API.md, Errors).
 */
export async function accessibleApplication(
  caller: Caller,
  appId: string,
  options: { teamRestricted: boolean; deniedStatus?: 401 | 403; includeDeleting?: boolean } = { teamRestricted: true },
): Promise<{ app: ApplicationRecord; membership: Membership }> {
  const denied = () =>
    options.deniedStatus === 403
      ? new HttpError(403, `You do not have permission for application ${appId}`)
      : unauthorized();
  // includeDeleting: a retried DELETE of an application whose cascade was interrupted resumes it.
  const app = options.includeDeleting ? await getApplicationIncludingDeleting(appId) : await getApplication(appId);
  if (!app) throw notFound(`application ${appId} not found`);
  const access = await caller.access(app.organizationId, appId);
  if (!access.granted) {
    if (access.reason === 'not-a-member') throw notFound(`application ${appId} not found`);
    if (access.reason === 'key-revoked') throw unauthorized();
    throw denied();
  }
  if (options.teamRestricted && !canSeeTeamResource(access.membership, app.teamId)) throw denied();
  return { app, membership: access.membership };
}

/** The environment `{envId}` of the application `{appId}`, with the application's access rules; 404 when it is not there. */
export async function accessibleEnvironment(
  caller: Caller,
  appId: string,
  envId: string,
  options: { teamRestricted: boolean; includeDeleting?: boolean },
) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: options.teamRestricted });
  const env = options.includeDeleting
    ? await getEnvironmentIncludingDeleting(appId, envId)
    : await getEnvironment(appId, envId);
  if (!env) throw notFound(`environment ${envId} not found in application ${appId}`);
  return { app, env };
}
