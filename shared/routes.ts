import * as z from 'zod'; // namespace import: lets esbuild drop zod's unused parts (its locales alone are 350 KB)
import type { Permission } from './permissions.ts';
import type { ActivityType } from './audit-types.ts';
import { caseInsensitiveEnum, pageSizeParam, pageTokenParam, uuidListParam, v2PageParam } from './lists.ts';
import {
  auditListQuery,
  createApplicationBody,
  createEnvironmentBody,
  createEnvironmentQuery,
  listApplicationsV1Query,
  listApplicationsV2Query,
  listEnvironmentsV1Query,
  listEnvironmentsV2Query,
  updateApplicationBody,
  updateEnvironmentBody,
} from './application-inputs.ts';
import { DESCRIPTION_CONTENT_TYPES, MAX_DESCRIPTION_BYTES, configNameSchema, mappingRequestSchema, redirectParam } from './hosted-asset-inputs.ts';

// THE route table: the single source of truth for the service's operations. The CDK stack (one Lambda and one
// API route each), the local server, the OpenAPI generator, the protobuf generator and the tests all read it.
export interface Route {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path as the public API spells it; `{name}` segments are parameters. */
  path: string;
  /** The module under functions/ whose `handler` export serves the operation. */
  handler: string;
  tag: string;
  summary: string;
  /** 'apiKey': X-ApiKey header (login only); 'bearer': an access token. */
  auth: 'apiKey' | 'bearer';
  /** Checked against the caller's membership of the organization the operation touches. */
  permission?: Permission;
  /** The user-activity entry the operation writes, in the same transaction as its change. */
  audit?: ActivityType;
  /** Path parameters other than UUID `...Id` ones (those are validated as UUIDs automatically). */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** JSON request body; absent: the operation takes none. */
  body?: z.ZodType;
  /** Raw (non-JSON) request body content types, e.g. the OpenAPI upload. */
  rawBody?: { contentTypes: string[]; maxBytes: number };
  /** Protobuf message name of the 200 response ('package.Message'), or 'empty' for an empty 200. */
  response: string;
  /** S3 access the operation's Lambda is granted (hosted assets); none when absent. */
  storage?: 'read' | 'readwrite';
  /** Response media types offered; defaults to JSON and protobuf. */
  mediaTypes?: string[];
  /** Extra notes for the OpenAPI description. */
  description?: string;
}

export const routes: Route[] = [
  {
    operationId: 'login',
    method: 'GET',
    path: '/api/v1/auth/login',
    handler: 'login',
    tag: 'Api Authentication',
    summary: 'Login with API Key',
    auth: 'apiKey',
    response: 'user.JWT',
    description: 'Exchanges the `X-ApiKey` header for an access token (a JWT valid for 30 minutes).',
  },
  {
    operationId: 'refreshToken',
    method: 'GET',
    path: '/api/v1/auth/refresh-token',
    handler: 'refresh-token',
    tag: 'Api Authentication',
    summary: 'Refresh Access Token',
    auth: 'bearer',
    response: 'user.JWT',
    description: 'Returns a new access token with a later expiry for a valid bearer token.',
  },
  {
    operationId: 'getUser',
    method: 'GET',
    path: '/api/v1/user',
    handler: 'get-user',
    tag: 'User',
    summary: 'Get Current User',
    auth: 'bearer',
    response: 'user.UserResponse',
    description: 'The calling user, with the organizations (API access enabled) it belongs to and its role in each.',
  },
  // ---- Hosted OAS and global configuration (SPEC 4.3; docs/HOSTED-ASSETS.md)
  {
    operationId: 'uploadOASForApplication',
    method: 'POST',
    path: '/api/v1/oas/{appId}/upload',
    handler: 'upload-oas-for-application',
    tag: 'Hosted OAS',
    summary: 'Upload OpenAPI Specification',
    auth: 'bearer',
    permission: 'write:scan_config',
    audit: 'ORGANIZATION_CONFIGURATION_MODIFIED',
    rawBody: { contentTypes: DESCRIPTION_CONTENT_TYPES, maxBytes: MAX_DESCRIPTION_BYTES },
    response: 'hawk.UploadOASResponse',
    storage: 'readwrite',
    mediaTypes: ['application/json'],
    description:
      'The raw OpenAPI 3.0 or 3.1 description, YAML or JSON (a JSON body may also be a JSON string holding it), at most 4 MiB (413 above). ' +
      'It is validated before it is stored: 400 says what is wrong and where (JSON pointer, line). One description per application, ' +
      'its `oasId` being the application id; re-uploading replaces it. 404: unknown application; 403: no `write:scan_config` ' +
      'for the application (team rules included). The response gives a presigned URL of the stored description.',
  },
  {
    operationId: 'getHostedOASForOrg',
    method: 'GET',
    path: '/api/v1/oas/{orgId}/{oasId}',
    handler: 'get-hosted-oas-for-org',
    tag: 'Hosted OAS',
    summary: 'Get hosted OpenAPI Specification',
    auth: 'bearer',
    permission: 'read:scan_config',
    query: z.object({ redirect: redirectParam(false) }),
    response: 'configuration.GetHostedAssetResponse',
    storage: 'read',
    mediaTypes: ['application/json'],
    description:
      'The uploaded description of application `oasId`, as a short-lived presigned download URL; `redirect=true` answers ' +
      '307 to it instead (with the same JSON body).',
  },
  {
    operationId: 'listOASAssetsForOrg',
    method: 'GET',
    path: '/api/v1/oas/{orgId}/list',
    handler: 'list-oas-assets-for-org',
    tag: 'Hosted OAS',
    summary: 'List hosted OpenAPI Specifications',
    auth: 'bearer',
    permission: 'read:scan_config',
    query: z.object({
      pageSize: pageSizeParam(),
      pageToken: pageTokenParam(),
      page: v2PageParam(),
      sortField: caseInsensitiveEnum(['repoId', 'repoName']),
      sortDir: caseInsensitiveEnum(['asc', 'desc']),
      repoIds: uuidListParam(),
    }),
    response: 'hawk.ListOASAssetResponse',
    mediaTypes: ['application/json'],
    description:
      "The organization's hosted (uploaded) descriptions the caller may see, `oasId` being the application id. Uploaded " +
      'descriptions come from no repository: a `repoIds` filter matches none of them.',
  },
  {
    operationId: 'getApplicationMappedOAS',
    method: 'GET',
    path: '/api/v1/oas/{appId}/mapping',
    handler: 'get-application-mapped-oas',
    tag: 'Hosted OAS',
    summary: 'Get OpenAPI Specifications mapped to an application',
    auth: 'bearer',
    permission: 'read:scan_config',
    response: 'app_oas.GetApplicationMappedOASResponse',
    mediaTypes: ['application/json'],
    description: "The application's uploaded description (if any) and the repository-sourced descriptions it includes.",
  },
  {
    operationId: 'toggleApplicationOASMapping',
    method: 'POST',
    path: '/api/v1/oas/{appId}/mapping',
    handler: 'toggle-application-oas-mapping',
    tag: 'Hosted OAS',
    summary: 'Toggle an OpenAPI Specification mapping',
    auth: 'bearer',
    permission: 'write:scan_config',
    audit: 'ORGANIZATION_CONFIGURATION_MODIFIED',
    body: mappingRequestSchema,
    response: 'app_oas.GetApplicationMappedOASResponse',
    mediaTypes: ['application/json'],
    description:
      'Includes (`include: true`) or excludes (`include` false or absent) the repository-sourced description `oasId` for the ' +
      'application. Idempotent: a request that changes nothing writes nothing.',
  },
  {
    operationId: 'getGlobalConfiguration',
    method: 'GET',
    path: '/api/v1/global-configuration/{configName}',
    handler: 'get-global-configuration',
    tag: 'Global Configuration',
    summary: 'Get Global Configuration',
    auth: 'bearer',
    permission: 'read:scan_config',
    params: z.object({ configName: configNameSchema }),
    query: z.object({ redirect: redirectParam(true) }),
    response: 'configuration.GetHostedAssetResponse',
    storage: 'read',
    mediaTypes: ['application/json'],
    description:
      'A global HawkScan configuration published by an operator. Answers 307 to a short-lived presigned URL (the body holds ' +
      'the JSON hosted-asset response too); `redirect=false` answers 200 with that JSON. The permission is needed in at ' +
      'least one organization.',
  },
  // ---- Applications, environments and the audit log (SPEC 4.2, 6; docs/DATA-MODEL.md)
  {
    operationId: 'createApplication',
    method: 'POST',
    path: '/api/v1/org/{orgId}/app',
    handler: 'create-application',
    tag: 'Applications',
    summary: 'Create Application',
    auth: 'bearer',
    permission: 'write:application',
    audit: 'APPLICATION_ADDED',
    body: createApplicationBody,
    response: 'application.Application',
    description:
      'Nothing is required (a name is strongly encouraged); unknown fields are ignored. An `env` creates that environment too ' +
      '(ENVIRONMENT_ADDED; its default scan configuration gets `host`), making the application ACTIVE; without one it is ' +
      'ENV_INCOMPLETE. A caller who belongs to a team creates the application for its team (`teamId` picks one of its teams). ' +
      'The response does not populate `env` and `envId`.',
  },
  {
    operationId: 'getApplication',
    method: 'GET',
    path: '/api/v1/app/{appId}',
    handler: 'get-application',
    tag: 'Applications',
    summary: 'Get Application',
    auth: 'bearer',
    permission: 'read:application',
    response: 'application.Application',
    description: 'A team-owned application is visible to its team members only (401 for others).',
  },
  {
    operationId: 'updateApplication',
    method: 'POST',
    path: '/api/v1/app/{appId}',
    handler: 'update-application',
    tag: 'Applications',
    summary: 'Update Application',
    auth: 'bearer',
    permission: 'write:application',
    audit: 'APPLICATION_MODIFIED',
    body: updateApplicationBody,
    response: 'application.Application',
    description: 'Only the name changes; other fields are ignored. Team-owned applications: team members only.',
  },
  {
    operationId: 'deleteApplication',
    method: 'DELETE',
    path: '/api/v1/app/{appId}',
    handler: 'delete-application',
    tag: 'Applications',
    summary: 'Delete Application',
    auth: 'bearer',
    permission: 'delete:application',
    audit: 'APPLICATION_REMOVED',
    response: 'empty',
    storage: 'readwrite',
    description:
      'Permanently deletes the application with all its environments, scan results, stored configurations and uploaded API ' +
      'description. The application disappears at once; should the request be interrupted, repeating it finishes the deletion.',
  },
  {
    operationId: 'createEnvironment',
    method: 'POST',
    path: '/api/v1/app/{appId}/env',
    handler: 'create-environment',
    tag: 'Applications',
    summary: 'Create Environment',
    auth: 'bearer',
    permission: 'write:application',
    audit: 'ENVIRONMENT_ADDED',
    query: createEnvironmentQuery,
    body: createEnvironmentBody,
    response: 'application.Application',
    storage: 'readwrite',
    description:
      'Environment names are unique per application, case-insensitively (409 otherwise). The new environment gets a default ' +
      'hosted scan configuration naming `host`. Returns the application with `env` and `envId` populated.',
  },
  {
    operationId: 'updateEnvironment',
    method: 'POST',
    path: '/api/v1/app/{appId}/env/{envId}',
    handler: 'update-environment',
    tag: 'Applications',
    summary: 'Update Environment',
    auth: 'bearer',
    permission: 'write:application',
    audit: 'ENVIRONMENT_MODIFIED',
    body: updateEnvironmentBody,
    response: 'application.Application',
    description: 'Only the name changes (409 if another environment of the application has it). Team-owned applications: team members only.',
  },
  {
    operationId: 'deleteEnvironment',
    method: 'DELETE',
    path: '/api/v1/app/{appId}/env/{envId}',
    handler: 'delete-environment',
    tag: 'Applications',
    summary: 'Delete Environment',
    auth: 'bearer',
    permission: 'delete:application',
    audit: 'ENVIRONMENT_REMOVED',
    response: 'empty',
    storage: 'readwrite',
    description: 'Permanently deletes the environment and its scan results; repeating an interrupted request finishes it.',
  },
  {
    operationId: 'listEnvsV2',
    method: 'GET',
    path: '/api/v2/org/{orgId}/envs',
    handler: 'list-environments-v2',
    tag: 'Applications',
    summary: 'List Environments V2',
    auth: 'bearer',
    permission: 'read:application',
    query: listEnvironmentsV2Query,
    response: 'application_view.ListEnvironmentsViewResponse',
    description:
      'Environments the caller may see (team membership), sorted by `sortField` (default environmentName) then id. List ' +
      'parameters may be comma-joined or repeated; `page=p_N` and `pageToken=N` select page N.',
  },
  {
    operationId: 'listAppsV2',
    method: 'GET',
    path: '/api/v2/org/{orgId}/apps',
    handler: 'list-applications-v2',
    tag: 'Applications',
    summary: 'List Applications V2',
    auth: 'bearer',
    permission: 'read:application',
    query: listApplicationsV2Query,
    response: 'application_view.ListApplicationsResponseV2',
    description: 'Applications the caller may see (team membership), sorted by `sortField` (default applicationName) then id.',
  },
  {
    operationId: 'listApplications',
    method: 'GET',
    path: '/api/v1/app/{orgId}/list',
    handler: 'list-applications',
    tag: 'Applications',
    summary: 'List Applications (deprecated)',
    auth: 'bearer',
    permission: 'read:application',
    query: listApplicationsV1Query,
    response: 'application.ListApplicationsResponse',
    description:
      'Deprecated: use List Applications V2. One entry per application-environment (an application without environments ' +
      'appears alone); `ignoreEnvs=true` gives one entry per application. `nextPageToken` is empty on the last page.',
  },
  {
    operationId: 'listEnvironments',
    method: 'GET',
    path: '/api/v1/app/{appId}/env/list',
    handler: 'list-environments',
    tag: 'Applications',
    summary: 'List Environments (deprecated)',
    auth: 'bearer',
    permission: 'read:application',
    query: listEnvironmentsV1Query,
    response: 'application.ListEnvironmentsResponse',
    description: 'Deprecated: use List Environments V2. `nextPageToken` is empty on the last page.',
  },
  {
    operationId: 'listAuditActivity',
    method: 'GET',
    path: '/api/v1/org/{orgId}/audit',
    handler: 'list-audit-activity',
    tag: 'Organizations',
    summary: 'List Audit Activity',
    auth: 'bearer',
    permission: 'read:audit',
    query: auditListQuery,
    response: 'audit.ListAuditRecordsResponse',
    description:
      "The organization's user-activity entries, oldest first unless `sortDir=desc`; `start`/`end` in ms; `timestamp` in ms; " +
      '`payload` a JSON object as a string. `nextPageToken` is "-1" when there is no further page.',
  },
];

export function routeById(operationId: string): Route {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`No route with operationId ${operationId} in shared/routes.ts`);
  return route;
}

/** Names of a path's parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}
