import { accessibleApplication } from '../applications/access.ts';
import { canSeeTeamResource, type ApplicationRecord } from '../applications/model.ts';
import { auditEntry } from '../audit/entries.ts';
import { badRequest, notFound } from '../errors.ts';
import { keys } from '../db/keys.ts';
import { batchGet } from '../db/query.ts';
import { fromItem } from '../db/items.ts';
import { hostedAssetAnswer, presignedDownload } from './downloads.ts';
import { objectKeys } from '../storage/objects.ts';
import { compareBy, pageOf, v1NextPageToken, type PageRequest, type SortDirection } from '../lists.ts';
import type { Caller } from '../context/caller.ts';
import type { MappingRequest } from './inputs.ts';
import { commitToLiveApplication, requireLiveApplication } from '../applications/application-repository.ts';
import { codeRepositoriesOfOrg, getCodeRepositories } from '../applications/code-repository-store.ts';
import {
  getHostedDescription,
  getOasMapping,
  listHostedDescriptionsOfOrg,
  putOasMapping,
  type MappedDescription,
} from './repository.ts';

// Hosted API descriptions (docs/HOSTED-ASSETS.md): one uploaded OpenAPI description per application, its oasId being
// the application id, plus the repository-sourced descriptions an application includes (its OAS mapping). The upload
// is in oas-upload.ts, so that only its Lambda bundles the validator.

/** Repository-sourced descriptions one application may include: keeps the mapping item far below 400 KB. */
export const MAX_MAPPED_DESCRIPTIONS = 100;

/** `open_api_spec.OASAsset`. */
interface OasAsset {
  oasId: string;
  repositoryId: string;
  repositoryName: string;
  sourceRootPath: string;
}

/** GET /api/v1/oas/{orgId}/{oasId}: the uploaded description of application `oasId` of the organization. */
export async function hostedDescriptionDownload(caller: Caller, orgId: string, oasId: string, redirect: boolean) {
  const { app } = await accessibleApplication(caller, oasId, { teamRestricted: true });
  const record = app.organizationId === orgId ? await getHostedDescription(oasId) : undefined;
  if (!record) throw notFound(`hosted OpenAPI description ${oasId} not found in organization ${orgId}`);
  // The key is rebuilt (it equals record.objectKey) so that the function's IAM grant covers only descriptions.
  return hostedAssetAnswer(
    await presignedDownload(objectKeys.hostedDescription(record.applicationId, record.version)),
    redirect,
  );
}

const uploadedAsset = (oasId: string): OasAsset => ({
  oasId,
  repositoryId: '',
  repositoryName: '',
  sourceRootPath: '',
});

/**
 * The organization's hosted descriptions the caller may see (docs/API.md, Team rules), as `OASAsset`s: each uploaded
 * description (no repository), and each description a registered repository lists (PUT /api/v1/org/{orgId}/repos
 * `openApiSpecs`) with its repository and path. A `repoIds` filter keeps only the latter, of those repositories.
 */
export async function listHostedDescriptions(
  caller: Caller,
  orgId: string,
  query: { request: PageRequest; sortField: 'repoId' | 'repoName'; sortDir: SortDirection; repoIds: string[] },
) {
  const membership = await caller.authorize(orgId);
  const [records, repos] = await Promise.all([listHostedDescriptionsOfOrg(orgId), codeRepositoriesOfOrg(orgId)]);
  const apps = (await batchGet(records.map((r) => keys.application(r.applicationId)))).map((item) =>
    fromItem<ApplicationRecord>(item)!,
  );
  const visible = new Set(
    apps
      .filter((app) => !app.deleting && app.organizationId === orgId && canSeeTeamResource(membership, app.teamId))
      .map((app) => app.applicationId),
  );
  const repoIds = new Set(query.repoIds.map((id) => id.toLowerCase()));
  const fromRepositories = repos
    .filter((repo) => repoIds.size === 0 || repoIds.has(repo.repoId))
    .flatMap((repo) =>
      (repo.openApiSpecs ?? [])
        .filter((spec) => visible.has(spec.oasId))
        .map((spec): OasAsset => ({
          oasId: spec.oasId,
          repositoryId: repo.repoId,
          repositoryName: repo.name,
          sourceRootPath: spec.sourceRootPath,
        })),
    );
  const sortKey =
    query.sortField === 'repoName' ? (a: OasAsset) => a.repositoryName.toLowerCase() : (a: OasAsset) => a.repositoryId;
  const assets = [...(repoIds.size > 0 ? [] : [...visible].map(uploadedAsset)), ...fromRepositories].sort(
    compareBy(sortKey, (a) => `${a.repositoryId}\n${a.oasId}\n${a.sourceRootPath}`, query.sortDir),
  );
  const page = pageOf(assets, query.request);
  const hasPrev = query.request.page > 0;
  return {
    oasFiles: page.items,
    totalCount: page.totalCount,
    hasNext: page.hasNext,
    nextPageToken: v1NextPageToken(query.request, page.totalCount),
    hasPrev,
    prevPageToken: hasPrev ? String(query.request.page - 1) : '',
  };
}

/**
 * `app_oas.GetApplicationMappedOASResponse`: the uploaded description, if any, then the included ones, named after
 * their repository when the organization registered it (code-repositories).
 */
async function mappedDescriptions(appId: string, orgId: string, mapped: MappedDescription[]) {
  const [uploaded, repos] = await Promise.all([
    getHostedDescription(appId),
    getCodeRepositories(
      orgId,
      mapped.map((m) => m.repositoryId),
    ),
  ]);
  const names = new Map(repos.map((repo) => [repo.repoId, repo.name]));
  return {
    appId,
    assets: [
      ...(uploaded ? [uploadedAsset(appId)] : []),
      ...mapped.map((m) => ({ ...m, repositoryName: names.get(m.repositoryId.toLowerCase()) ?? '' })),
    ],
    repoIds: [...new Set(mapped.map((m) => m.repositoryId))],
  };
}

export async function applicationMapping(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  return mappedDescriptions(appId, app.organizationId, (await getOasMapping(appId)).assets);
}

/** Stored maps come back with their keys in any order: compare mappings field by field. */
const fingerprint = (assets: MappedDescription[]) =>
  JSON.stringify(assets.map((a) => [a.oasId, a.repositoryId, a.sourceRootPath]));

/**
 * Includes (`include: true`) or excludes a repository-sourced description for the application. Idempotent:
 * a request that changes nothing writes nothing; a change is audited like the upload, in the same transaction.
 */
export async function toggleMapping(caller: Caller, appId: string, request: MappingRequest) {
  if (request.appId && request.appId.toLowerCase() !== appId.toLowerCase()) {
    throw badRequest(`body.appId: must be the application of the path (${appId}) or absent`);
  }
  if (request.oasId.toLowerCase() === appId.toLowerCase()) {
    throw badRequest(
      'body.oasId: the uploaded description of the application is always included; name a repository-sourced description',
    );
  }
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const entry: MappedDescription = {
    oasId: request.oasId,
    repositoryId: request.repositoryId,
    sourceRootPath: request.sourceRootPath,
  };
  let assets: MappedDescription[] = [];
  await commitToLiveApplication(appId, async () => {
    const mapping = await getOasMapping(appId);
    const listed = mapping.assets.some((asset) => asset.oasId === entry.oasId);
    if (!request.include) assets = mapping.assets.filter((asset) => asset.oasId !== entry.oasId);
    else
      assets = listed
        ? mapping.assets.map((asset) => (asset.oasId === entry.oasId ? entry : asset))
        : [...mapping.assets, entry];
    if (fingerprint(assets) === fingerprint(mapping.assets)) return undefined;
    if (assets.length > MAX_MAPPED_DESCRIPTIONS) {
      throw badRequest(
        `application ${appId} already includes ${MAX_MAPPED_DESCRIPTIONS} descriptions, the most it may`,
      );
    }
    return [
      requireLiveApplication(appId),
      putOasMapping({ applicationId: appId, assets, revision: mapping.revision + 1 }),
      auditEntry(caller, app.organizationId, 'ORGANIZATION_CONFIGURATION_MODIFIED', {
        appId,
        appName: app.name,
        oasId: entry.oasId,
        repositoryId: entry.repositoryId,
        include: request.include,
      }),
    ];
  });
  return mappedDescriptions(appId, app.organizationId, assets);
}
