import type { Membership } from '../context/caller.ts';
import { canSeeTeamResource } from './access.ts';
import { getApplications, type ApplicationRecord } from './application-repository.ts';
import type { CodeRepositoryRecord } from './code-repository-store.ts';

// The views of registered source-code repositories (shared/code-repositories/) that the environment list also
// answers: kept with the application records they are built from.

/** `repository.AppInfo` of a mapped application. */
export const appInfo = (app: ApplicationRecord) => ({
  id: app.applicationId,
  name: app.name,
  appStatus: app.applicationStatus,
});

/** `repository.Repository`; `apps` are the mapped applications the caller may see. */
export function repositoryView(repo: CodeRepositoryRecord, apps: ApplicationRecord[]) {
  const [first] = apps;
  return {
    stackHawkRepoId: repo.repoId,
    name: repo.name,
    repoSource: repo.repoSource,
    remoteUrl: repo.remoteUrl,
    lastCommitBranch: repo.defaultBranch,
    lastCommitTimestamp: repo.lastCommitTimestamp,
    commitCount: repo.commitCount,
    languages: repo.languages,
    frameworkNames: repo.frameworkNames,
    appInfos: apps.map(appInfo),
    stackHawkApplicationId: first?.applicationId,
    stackHawkApplicationName: first?.name,
    stackHawkApplicationStatus: first?.applicationStatus, // left out without a mapped application
    // Coverage follows from the mapped applications. NOT_APPLICABLE (outside the attack surface) needs attack-surface
    // detection from the code, which a source-control integration does: never answered here (docs/DATA-MODEL.md).
    status: apps.length > 0 ? ('COVERED' as const) : ('NOT_COVERED' as const),
    isInAttackSurface: apps.length > 0,
    // Its registered API descriptions (listed by listOASAssetsForOrg); nothing generates them here.
    hasGeneratedOpenApiSpec: (repo.openApiSpecs?.length ?? 0) > 0,
    openApiSpecInfo: {
      organizationId: repo.organizationId,
      repositoryId: repo.repoId,
      generatedOasCount: repo.openApiSpecs?.length ?? 0,
      status: repo.openApiSpecs?.length ? ('DONE' as const) : ('NONE' as const),
    },
  };
}

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
