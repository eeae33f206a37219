import type { Membership } from '../context/caller.ts';
import { canSeeTeamResource, type ApplicationRecord } from './model.ts';
import { getApplications } from './application-repository.ts';

// The views of registered source-code repositories (shared/code-repositories/) that the environment list also
// answers: kept with the application records they are built from.

/** The live applications among `appIds` that belong to the organization and that the member may see. */
export async function visibleApplications(
  orgId: string,
  membership: Membership,
  appIds: string[],
): Promise<Map<string, ApplicationRecord>> {
  const apps = await getApplications(appIds);
  return new Map(
    apps
      .filter((a) => a.organizationId === orgId && canSeeTeamResource(membership, a.teamId))
      .map((a) => [a.applicationId, a]),
  );
}
