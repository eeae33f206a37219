import * as z from 'zod/mini'; // namespace import: lets esbuild drop zod's unused parts (its locales alone are 350 KB)
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
import {
  alertMessageQuery,
  configHashSchema,
  listAlertFindingsQuery,
  listScanAlertsQuery,
  listScansQuery,
  pluginIdSchema,
  scanAlertsBody,
  scanCompletedBody,
  scanStartedBody,
} from './scan-inputs.ts';
import { DESCRIPTION_CONTENT_TYPES, MAX_DESCRIPTION_BYTES, configNameSchema, mappingRequestSchema, redirectParam } from './hosted-asset-inputs.ts';
import { createTeamBody, listTeamsForOrgQuery, listTeamsForUserQuery, updateApplicationTeamBody, updateTeamBody } from './team-inputs.ts';

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
  params?: z.ZodMiniObject;
  query?: z.ZodMiniObject;
  /** JSON request body; absent: the operation takes none. */
  body?: z.ZodMiniType;
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
  // ---- Teams (SPEC 2.5, 4.4; docs/DATA-MODEL.md "Teams")
  {
    operationId: 'getTeam',
    method: 'GET',
    path: '/api/v1/org/{orgId}/team/{teamId}',
    handler: 'get-team',
    tag: 'Organization Teams',
    summary: 'Get Team',
    auth: 'bearer',
    permission: 'read:team',
    response: 'organization.TeamByIdResponse',
    description:
      'The team with its members and applications (each with its environment names). Any member of the organization may ' +
      'call (with `read:team`).',
  },
  {
    operationId: 'updateTeams',
    method: 'PUT',
    path: '/api/v1/org/{orgId}/team/{teamId}',
    handler: 'update-team',
    tag: 'Organization Teams',
    summary: 'Update Team',
    auth: 'bearer',
    permission: 'write:team',
    audit: 'TEAM_UPDATED',
    body: updateTeamBody,
    response: 'organization.UpdateTeamResponse',
    description:
      "**Replace-all**: the body is the team's whole new state. `name` is required; `userIds` and `applicationIds` are the " +
      'complete new lists (absent means empty: every member or application is removed); `teamId` and `organizationId`, ' +
      'if sent, must match the path. To add or remove one member, GET the team, change the list and PUT it back. ' +
      'Users must be members of the organization and applications belong to it (400 otherwise); an application owned ' +
      'by another team moves to this one (an application has at most one team); a removed application is left without ' +
      'a team (visible to the whole organization). Names are unique per organization, case-insensitively (400). ' +
      'The change, with every member\'s and application\'s copy of it, is one atomic write of at most 100 items (400 above): ' +
      'one per user added or removed and per application moved, one per team an application is taken from, one per ' +
      '(application type, team) counter changed, plus the team, its name claim and the audit entry. ' +
      'If another request changes the team while this one is applied, the answer is 409: GET the team again and ' +
      're-apply the change. Membership changes apply to the members\' next request (tokens carry no team claims).',
  },
  {
    operationId: 'deleteTeam',
    method: 'DELETE',
    path: '/api/v1/org/{orgId}/team/{teamId}',
    handler: 'delete-team',
    tag: 'Organization Teams',
    summary: 'Delete Team',
    auth: 'bearer',
    permission: 'delete:team',
    audit: 'TEAM_DELETED',
    response: 'organization.DeleteTeamResponse',
    description:
      'Deletes the team only: its applications are left without a team (visible to the whole organization) and its ' +
      'members stay in the organization. One atomic write of at most 100 items: any team of up to 93 users and ' +
      'applications together can be deleted; a larger one may have to be made smaller (PUT) first (400 says so).',
  },
  {
    operationId: 'updateApplicationTeam',
    method: 'PUT',
    path: '/api/v1/org/{orgId}/team/{teamId}/application',
    handler: 'update-application-team',
    tag: 'Organization Teams',
    summary: 'Update Team Application',
    auth: 'bearer',
    permission: 'write:team',
    audit: 'APPLICATION_MODIFIED',
    body: updateApplicationTeamBody,
    response: 'organization.UpdateApplicationTeamResponse',
    description:
      'Makes the team the owner of application `applicationId` (moving it from its previous team, if any). Only members of ' +
      'the team may call (401 otherwise). `teamId` in the body, if sent, must match the path. An application already in ' +
      'the team: 200, nothing written.',
  },
  {
    operationId: 'createTeam',
    method: 'POST',
    path: '/api/v1/org/{orgId}/team',
    handler: 'create-team',
    tag: 'Organization Teams',
    summary: 'Create Team',
    auth: 'bearer',
    permission: 'write:team',
    audit: 'TEAM_ADDED',
    body: createTeamBody,
    response: 'organization.CreateTeamResponse',
    description:
      'A non-empty `name`, unique in the organization case-insensitively (400 otherwise); optional `userIds` (members of ' +
      'the organization) and `applicationIds` (applications of it; one owned by another team moves to the new team). ' +
      '`organizationId`, if sent, must match the path. The same atomic-write limit as Update Team applies.',
  },
  {
    operationId: 'listTeamsForOrgAndUser',
    method: 'GET',
    path: '/api/v1/org/{orgId}/user/{userId}/teams',
    handler: 'list-teams-for-user',
    tag: 'Organization Teams',
    summary: 'Find Teams for User',
    auth: 'bearer',
    permission: 'read:team',
    query: listTeamsForUserQuery,
    response: 'organization.ListTeamsResponse',
    description:
      "The caller's teams in the organization, by name. Only the caller's own id may be given as `userId` (401 otherwise). " +
      '`nextPageToken` is empty on the last page.',
  },
  {
    operationId: 'listTeamsForOrg',
    method: 'GET',
    path: '/api/v1/org/{orgId}/teams',
    handler: 'list-teams-for-org',
    tag: 'Organization Teams',
    summary: 'Find Teams for Organization',
    auth: 'bearer',
    permission: 'read:team',
    query: listTeamsForOrgQuery,
    response: 'organization.ListTeamsResponse',
    description:
      "The organization's teams, by name (then id); any member of the organization may call. `search` keeps the teams " +
      'whose name contains it, case-insensitively, `*` standing for any characters. `nextPageToken` is empty on the last page.',
  },
  // ---- Scans: the scanner reports them, the API reads them (SPEC 1, 2.2, 4.2; docs/DATA-MODEL.md "Scans")
  {
    operationId: 'reportScanStarted',
    method: 'POST',
    path: '/api/v1/app/{appId}/scan',
    handler: 'report-scan-started',
    tag: 'Scan Results',
    summary: 'Report a scan started (scanner)',
    auth: 'bearer',
    permission: 'write:scan',
    audit: 'SCAN_STARTED',
    body: scanStartedBody,
    response: 'hawk.ScanStarted',
    storage: 'readwrite',
    description:
      'The scanner announces a scan of environment `env` (created, with ENVIRONMENT_ADDED, when the application has no ' +
      'environment of that name). `config` is the scan configuration YAML: 400 when it is not valid YAML or not a HawkScan ' +
      'configuration object. It is stored under its `configHash` (hex SHA-256 of the text). The scan is STARTED and becomes ' +
      "the environment's last scan. Team-owned applications: team members only.",
  },
  {
    operationId: 'reportScanAlerts',
    method: 'POST',
    path: '/api/v1/scan/{scanId}/alerts',
    handler: 'report-scan-alerts',
    tag: 'Scan Results',
    summary: 'Report scan findings (scanner)',
    auth: 'bearer',
    permission: 'write:scan',
    body: scanAlertsBody,
    response: 'hawk.ScanAlertsReported',
    description:
      'Adds findings to a STARTED scan; may be called many times (at most 10000 URIs per request). Alerts with the same ' +
      '`pluginId` merge: their URIs add up, and the first report of a plugin sets its name, severity, description, cweId and ' +
      'references. 400 once the scan is completed. Not audited (SCAN_STARTED and SCAN_COMPLETED bracket the reporting).',
  },
  {
    operationId: 'reportScanCompleted',
    method: 'POST',
    path: '/api/v1/scan/{scanId}/complete',
    handler: 'report-scan-completed',
    tag: 'Scan Results',
    summary: 'Report a scan finished (scanner)',
    auth: 'bearer',
    permission: 'write:scan',
    body: scanCompletedBody,
    response: 'application.ApplicationScanResult',
    description:
      'Ends a STARTED scan with `status` COMPLETED (audit SCAN_COMPLETED) or ERROR (SCAN_ERRORED): its duration, final ' +
      "statistics and the environment's last-scan fields are set. 400 if the scan already ended. Returns the scan result.",
  },
  {
    operationId: 'listScans',
    method: 'GET',
    path: '/api/v1/scan/{orgId}',
    handler: 'list-scans',
    tag: 'Scan Results',
    summary: 'List Scans',
    auth: 'bearer',
    permission: 'read:scan',
    query: listScansQuery,
    response: 'application.ListScanResultsResponse',
    description:
      "The organization's scans the caller may see (team membership), newest first unless `sortField` is `id` (scan id) " +
      'or `name` (application name, then environment name). `start`/`end` bound the start time (ms). `timestamp` fields ' +
      'are in ms. `applicationAlerts` is always empty here. `nextPageToken` is empty on the last page.',
  },
  {
    operationId: 'deleteScan',
    method: 'DELETE',
    path: '/api/v1/scan/{scanId}',
    handler: 'delete-scan',
    tag: 'Scan Results',
    summary: 'Delete a Scan',
    auth: 'bearer',
    permission: 'delete:scan',
    audit: 'SCAN_REMOVED',
    response: 'hawk.Empty',
    description:
      "Permanently deletes the scan with its findings and messages. When it was its environment's last scan, the " +
      "environment's last-scan fields then describe the previous scan (or are empty).",
  },
  {
    operationId: 'listScanAlerts',
    method: 'GET',
    path: '/api/v1/scan/{scanId}/alerts',
    handler: 'list-scan-alerts',
    tag: 'Scan Results',
    summary: 'List Scan Alerts',
    auth: 'bearer',
    permission: 'read:scan',
    query: listScanAlertsQuery,
    response: 'application.ListApplicationAlertsResponse',
    description:
      'One `applicationScanResults` entry: the scan with a page of its alerts (by pluginId, or by name with `sortField=name`). ' +
      '`totalCount` counts the alerts.',
  },
  {
    operationId: 'listScanAlertFindings',
    method: 'GET',
    path: '/api/v1/scan/{scanId}/alert/{pluginId}',
    handler: 'list-scan-alert-findings',
    tag: 'Scan Results',
    summary: 'List Scan Alert Findings',
    auth: 'bearer',
    permission: 'read:scan',
    params: z.object({ pluginId: pluginIdSchema }),
    query: listAlertFindingsQuery,
    response: 'application.AlertResponse',
    description: 'The alert and a page of the URIs that triggered it, in the order reported. `pageSize` is at most 100 (larger values are reduced).',
  },
  {
    operationId: 'getAlertMessages',
    method: 'GET',
    path: '/api/v1/scan/{scanId}/uri/{alertUriId}/messages/{messageId}',
    handler: 'get-alert-messages',
    tag: 'Scan Results',
    summary: 'Get Scan Alert Messages',
    auth: 'bearer',
    permission: 'read:scan',
    query: alertMessageQuery,
    response: 'application.AlertMsgResponse',
    description: 'The request and response behind one finding (`messageId` = the alert URI\'s `msgId`). `includeValidationCommand=true` adds a curl command reproducing the request.',
  },
  {
    operationId: 'getConfig',
    method: 'GET',
    path: '/api/v1/app/{appId}/config/{configHash}',
    handler: 'get-config',
    tag: 'Applications',
    summary: 'Get Application Config',
    auth: 'bearer',
    permission: 'read:scan_config',
    params: z.object({ configHash: configHashSchema }),
    response: 'application.ApplicationConfigResponse',
    storage: 'read',
    description: "The scan configuration a scan of the application reported, parsed. 404 when no scan of the application uses this hash.",
  },
];

export function routeById(operationId: string): Route {
  const route = routes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`No route with operationId ${operationId} in shared/routes.ts`);
  return route;
}

/** Matches a concrete path against a route's path; the groups are the parameters' values, in order. */
export function pathPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{\w+\}/g, '([^/]+)')}/?$`);
}

/** Names of a path's parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}
