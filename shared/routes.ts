import * as z from 'zod/mini'; // namespace import: lets esbuild drop zod's unused parts (its locales alone are 350 KB)
import type { Route } from './http/route.ts';
import {
  DESCRIPTION_LIMITS,
  DESCRIPTION_VALIDATION,
  FINDINGS_REPORT_BODY_BYTES,
  FINDINGS_REPORT_LIMITS,
  IMPORT_BODY_BYTES,
  IMPORT_LIMITS,
  MAX_PATTERN_LENGTH,
  SCAN_CONFIG_LIMITS,
  SCAN_START_BODY_BYTES,
} from './limits.ts';
import { caseInsensitiveEnum, pageSizeParam, pageTokenParam, uuidListParam, uuidSchema, v2PageParam } from './lists.ts';
import {
  createApplicationBody,
  createEnvironmentBody,
  createEnvironmentQuery,
  listApplicationsV1Query,
  listApplicationsV2Query,
  listEnvironmentsV2Query,
  updateApplicationBody,
  updateEnvironmentBody,
} from './applications/inputs.ts';
import { auditListQuery } from './audit/inputs.ts';
import {
  alertMessageQuery,
  configHashSchema,
  IMPORT_CONTENT_TYPES,
  importScanQuery,
  listAlertFindingsQuery,
  listScanAlertsQuery,
  listScansQuery,
  pluginIdSchema,
  scanAlertsBody,
  scanCompletedBody,
  scanSarifQuery,
  scanDiffQuery,
  scanSecretBody,
  scanSecretParams,
  listEnvironmentsV1Query,
  createEnvironmentDefaultConfigBody,
} from './scans/inputs.ts';
import { scanStartedBody } from './scans/model.ts';
import {
  DESCRIPTION_CONTENT_TYPES,
  MAX_DESCRIPTION_BYTES,
  mappingRequestSchema,
  redirectParam,
} from './hosted-assets/inputs.ts';
import { configNameSchema } from './hosted-assets/model.ts';
import {
  listScanConfigurationsQuery,
  renameScanConfigurationBody,
  validateScanConfigurationBody,
} from './scan-configurations/inputs.ts';
import { upsertScanConfigurationBody } from './scan-configurations/model.ts';
import { assignFindingsBody, bulkTriageBody, findingsReportQuery, upsertAlertRulesBody } from './findings/inputs.ts';
import {
  acceptInvitationAsUserBody,
  acceptInvitationBody,
  createInvitationBody,
  createUserKeyBody,
  keyIdSchema,
  listMemberRolesQuery,
  listMembersQuery,
  listOrganizationKeysQuery,
  updateMemberBody,
} from './identity/inputs.ts';
import {
  MAX_AGENT_LABELS,
  MAX_AGENT_POOLS,
  MAX_REQUIRED_LABELS,
  MAX_RUN_LOG_BYTES,
  agentPoolsBody,
  hostedScanSettingsBody,
  perchCommandBody,
  pollBody,
  readRunLogQuery,
  registerDeviceBody,
  RUN_END_BODY_BYTES,
  runEndBody,
  runLogQuery,
  runScanStartedQuery,
  retestParams,
  retestQuery,
  runUpdateBody,
  scanKeyParams,
  searchDevicesBody,
} from './perch/inputs.ts';
import {
  MAX_PROFILE_RESULT_BYTES,
  bulkProfileResultsBody,
  listProfileResultsQuery,
  profileResultBody,
  profileResultQuery,
} from './profiles/inputs.ts';
import {
  applicationPolicyQuery,
  listOrganizationPoliciesQuery,
  policyNameQuery,
  policyNameSchema,
  techFlagsBody,
  togglePluginParams,
  upsertOrganizationPolicyBody,
} from './policies/inputs.ts';
import {
  createAppsForReposBody,
  listRepositoriesQuery,
  listSensitiveDataQuery,
  registerRepositoryBody,
  replaceMappingsBody,
} from './code-repositories/inputs.ts';
import {
  createTeamBody,
  listTeamsForOrgQuery,
  listTeamsForUserQuery,
  updateApplicationTeamBody,
  updateTeamBody,
} from './teams/inputs.ts';
import { createWebhookBody, integrationSettingsBody, updateWebhookBody } from './webhooks/inputs.ts';
import { ssoCallbackBody, ssoLinkBody, ssoProviderBody, ssoStartBody } from './sso/inputs.ts';
import { slaOverrideBody, slaPolicyBody } from './governance/inputs.ts';
import { trendsQuery } from './trends/inputs.ts';
import { MAX_RISK_RANKED, applicationRiskQuery } from './overview/inputs.ts';
import { createTrackerBody, updateTrackerBody } from './trackers/inputs.ts';
import { MAX_SCHEDULES_PER_APP, createScheduleBody, updateScheduleBody } from './schedules/inputs.ts';

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();
/**
 * Builds an operation's notes at load, marked side-effect free like `schema`: notes that quote limits are computed,
 * and without the mark every function's bundle would keep every route whose notes are.
 */
const note = /* @__NO_SIDE_EFFECTS__ */ (build: () => string): string => build();

/** How a deprecated (V1) list pages to its end (docs/COMPATIBILITY.md "Paging"), given its end marker. */
const v1Paging = (endMarker: string) =>
  'After the last page, `nextPageToken` names a page past the end (`totalCount` + 1), which answers an empty ' +
  `list and the end marker (\`nextPageToken\` ${endMarker}). An empty \`pageToken\` is page 0; \`pageToken=-1\` ` +
  'answers an empty list with an empty `nextPageToken`.';

const MiB = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;
const documentLimits = (limits: typeof SCAN_CONFIG_LIMITS | typeof DESCRIPTION_LIMITS) =>
  `nesting at most ${limits.maxDepth} levels deep, at most ${limits.maxNodes} keys and values and ${limits.maxAliases} aliases ` +
  '(aliases that expand too much are refused), no duplicate keys';

// THE route table: the single source of truth for the service's operations. The CDK stack (one Lambda and one
// API route each), the local server, the OpenAPI generator, the protobuf generator and the tests all read it; what a
// route is (`Route`) and the helpers that build paths from routes are in shared/http/route.ts.

// Each operation is a named export, so that a function's bundle holds its own route and no other (with the
// schemas only it uses): its handler, functions/<operationId in kebab case>.ts (handlerFile), imports it. Each is
// checked with `satisfies Route` rather than typed `Route`, so that its path and schemas keep their own types, which
// type its handler's input (operation(route, impl), shared/http/types.ts). `routes` lists them all, in this order.
export const loginRoute = {
  operationId: 'login',
  method: 'GET',
  path: '/api/v1/auth/login',
  tag: 'Api Authentication',
  summary: 'Login with API Key',
  notes: 'Exchanges the `X-ApiKey` header for an access token (a JWT valid for 30 minutes).',
  auth: 'apiKey',
  response: 'user.JWT',
} satisfies Route;

export const refreshTokenRoute = {
  operationId: 'refreshToken',
  method: 'GET',
  path: '/api/v1/auth/refresh-token',
  tag: 'Api Authentication',
  summary: 'Refresh Access Token',
  notes: 'Returns a new access token with a later expiry for a valid bearer token.',
  auth: 'bearer',
  response: 'user.JWT',
} satisfies Route;

export const getUserRoute = {
  operationId: 'getUser',
  method: 'GET',
  path: '/api/v1/user',
  tag: 'User',
  summary: 'Get Current User',
  notes: 'The calling user, with the organizations (API access enabled) it belongs to and its role in each.',
  auth: 'bearer',
  response: 'user.UserResponse',
} satisfies Route;

// ---- API keys in settings (docs/IDENTITY.md "API keys"): the caller's own keys, and an organization's members' keys
export const createUserKeyRoute = {
  operationId: 'createUserKey',
  method: 'POST',
  path: '/api/v1/user/keys',
  tag: 'User',
  summary: 'Create API Key',
  notes:
    'Creates an API key of the caller (docs/IDENTITY.md "API keys"): `name`, optional `expiresAt` (ISO 8601 or ms ' +
    'since the epoch, in the future), optional `permissions` and `applicationId` narrowing it. The answer holds the ' +
    'key itself (`apiKey`), shown only here: only its hash is stored. At most 50 keys per user (409). A session of a ' +
    'narrowed key cannot create keys (401).',
  auth: 'bearer',
  audit: 'API_KEY_ADDED',
  body: createUserKeyBody,
  response: 'hawk.CreatedApiKey',
} satisfies Route;

export const listUserKeysRoute = {
  operationId: 'listUserKeys',
  method: 'GET',
  path: '/api/v1/user/keys',
  tag: 'User',
  summary: 'List API Keys',
  notes:
    "The caller's API keys, newest first: metadata only (`lastUsedAt` to the minute; empty times: never), never " +
    'the secret or its hash.',
  auth: 'bearer',
  response: 'hawk.ApiKeyList',
} satisfies Route;

export const revokeUserKeyRoute = {
  operationId: 'revokeUserKey',
  method: 'DELETE',
  path: '/api/v1/user/keys/{keyId}',
  tag: 'User',
  summary: 'Revoke API Key',
  notes:
    'Revokes an API key of the caller: login with it and refresh of the tokens it issued answer 401 from now on, ' +
    'and its tokens are refused at once by every operation that authorizes against an organization. 404: no such ' +
    'key of the caller.',
  auth: 'bearer',
  audit: 'API_KEY_REMOVED',
  params: schema(() => z.object({ keyId: keyIdSchema })),
  response: 'hawk.Empty',
} satisfies Route;

export const listOrganizationKeysRoute = {
  operationId: 'listOrganizationKeys',
  method: 'GET',
  path: '/api/v1/org/{orgId}/keys',
  tag: 'Organizations',
  summary: "List Members' API Keys",
  notes:
    "Every member's API keys (metadata only, with the member's `userId` and `userEmail`), paged by member " +
    '(`pageSize` members, at most 100; `totalCount` counts members).',
  auth: 'bearer',
  permission: 'write:member',
  query: listOrganizationKeysQuery,
  response: 'hawk.ApiKeyList',
} satisfies Route;

export const revokeMemberKeyRoute = {
  operationId: 'revokeMemberKey',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/members/{userId}/keys/{keyId}',
  tag: 'Organizations',
  summary: "Revoke a Member's API Key",
  notes: "Revokes a member's API key, as revokeUserKey does; audited in this organization. 404: not a key of a member.",
  auth: 'bearer',
  permission: 'write:member',
  audit: 'API_KEY_REMOVED',
  params: schema(() => z.object({ keyId: keyIdSchema })),
  response: 'hawk.Empty',
} satisfies Route;

// ---- Single sign-on with the organization's OpenID Connect provider (docs/IDENTITY.md "Single sign-on")
export const getSsoProviderRoute = {
  operationId: 'getSsoProvider',
  method: 'GET',
  path: '/api/v1/org/{orgId}/sso',
  tag: 'Organizations',
  summary: "Get the organization's single sign-on provider (ours)",
  notes:
    'The organization\'s OpenID Connect provider (docs/IDENTITY.md "Single sign-on"), without its client secret ' +
    '(`clientSecretSet` says one is stored); `configured: false` when there is none.',
  auth: 'bearer',
  permission: 'write:member',
  response: 'hawk.SsoProvider',
} satisfies Route;

export const updateSsoProviderRoute = {
  operationId: 'updateSsoProvider',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/sso',
  tag: 'Organizations',
  summary: "Set the organization's single sign-on provider (ours)",
  notes:
    "Sets the organization's OpenID Connect provider: `issuer`, `clientId`, `clientSecret` (required the first time " +
    "and when the issuer or client changes; stored sealed, never shown), `redirectUri` (the dashboard's " +
    '`/sso/callback`, registered at the provider), `scopes` (default openid email profile), `groupsClaim` (default ' +
    '`groups`), `allowedEmailDomains`, `defaultRole`, `groupRoles` and `groupTeams` (the groups claim mapped to roles ' +
    'and teams), `enabled`. The issuer is discovered first: 400 when it cannot be, or when it resolves to an address ' +
    'the organization does not allow (private and loopback ones only with `allowPrivateNetworks`), or names an ' +
    'endpoint that is not http(s). Only an owner changes it (403), and `defaultRole` is MEMBER, READ_ONLY or SCANNER.',
  auth: 'bearer',
  permission: 'write:member',
  audit: 'ORG_SETTINGS_MODIFIED',
  body: ssoProviderBody,
  response: 'hawk.SsoProvider',
} satisfies Route;

export const deleteSsoProviderRoute = {
  operationId: 'deleteSsoProvider',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/sso',
  tag: 'Organizations',
  summary: "Remove the organization's single sign-on provider (ours)",
  notes:
    "Removes the organization's provider: sign-in with it stops, and the sessions it started end at their next " +
    'refresh. Only an owner removes it (403).',
  auth: 'bearer',
  permission: 'write:member',
  audit: 'ORG_SETTINGS_MODIFIED',
  response: 'hawk.Empty',
} satisfies Route;

export const startSsoSignInRoute = {
  operationId: 'startSsoSignIn',
  method: 'POST',
  path: '/api/v1/auth/sso/start',
  tag: 'Api Authentication',
  summary: "Start signing in with the organization's identity provider (ours)",
  notes:
    "Starts the authorization code flow with PKCE: answers the provider's `authorizationUrl` and a `binding` that " +
    'the browser tab keeps and sends with the callback. State, nonce and code verifier stay on the server for ten ' +
    'minutes. 404 when the organization has no enabled provider.',
  auth: 'none',
  body: ssoStartBody,
  response: 'hawk.SsoSignInStart',
} satisfies Route;

export const completeSsoSignInRoute = {
  operationId: 'completeSsoSignIn',
  method: 'POST',
  path: '/api/v1/auth/sso/callback',
  tag: 'Api Authentication',
  summary: "Finish signing in with the identity provider's answer (ours)",
  notes:
    "Finishes sign-in: `query` is the callback's query string as the provider sent it, `binding` what the start " +
    'answered. The sign-in is used once; the code is redeemed and the ID token checked (issuer, audience, expiry, ' +
    'nonce) by openid-client. The user is provisioned (a new member writes `USER_JOINED_ORG`, a changed role or teams ' +
    "`USER_MODIFIED`) and the answer is an access token as login's, reaching only this organization, refreshed " +
    'with refreshToken for up to 12 hours. When the e-mail address belongs to an account not linked to this identity, ' +
    'no session: `token` is empty and `linkTicket` is what that account confirms with confirmSsoLink. Any refusal ' +
    'is a 401 saying why.',
  auth: 'none',
  audit: 'USER_JOINED_ORG',
  body: ssoCallbackBody,
  response: 'hawk.SsoSignIn',
} satisfies Route;

export const confirmSsoLinkRoute = {
  operationId: 'confirmSsoLink',
  method: 'POST',
  path: '/api/v1/auth/sso/link',
  tag: 'Api Authentication',
  summary: "Link your account to an identity of an organization's provider (ours)",
  notes:
    'Links the identity a single sign-on answered a `linkTicket` for (ten minutes) to the caller, who must be the ' +
    "account of the provider's e-mail address, signed in with its own API key: a single sign-on or narrowed session " +
    'is refused (403), as is a ticket for another account. Its next sign-in with that provider reaches that ' +
    'organization only. 400: not a ticket of this service; 410: expired; 409: already linked, or the provider changed.',
  auth: 'bearer',
  audit: 'USER_MODIFIED',
  body: ssoLinkBody,
  response: 'hawk.Empty',
} satisfies Route;

export const signOutRoute = {
  operationId: 'signOut',
  method: 'POST',
  path: '/api/v1/auth/sign-out',
  tag: 'Api Authentication',
  summary: 'Sign out: end this session (ours)',
  notes:
    'Ends the session: one started by single sign-on can no longer be refreshed and its tokens are refused at once. ' +
    'A session of an API key has nothing to end on the server (revoke the key for that).',
  auth: 'bearer',
  response: 'hawk.Empty',
} satisfies Route;

// ---- Members and roles (docs/IDENTITY.md "Members and roles"): roles, removal and invitations
export const listMemberRolesRoute = {
  operationId: 'listMemberRoles',
  method: 'GET',
  path: '/api/v1/org/{orgId}/roles',
  tag: 'Organizations',
  summary: "List Roles and Members' Roles",
  notes:
    'The named roles (OWNER, ADMIN, MEMBER, READ_ONLY, SCANNER: name, the public role shown for it, its permissions) ' +
    "and a page of members (by user id; `pageSize` at most 100) with each one's named role (`roleName`, CUSTOM for a " +
    'set of its own) and permissions (docs/IDENTITY.md "Members and roles").',
  auth: 'bearer',
  permission: 'read:member',
  query: listMemberRolesQuery,
  response: 'hawk.MemberRoleList',
} satisfies Route;

export const updateMemberRoute = {
  operationId: 'updateMember',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/members/{userId}',
  tag: 'Organizations',
  summary: "Change a Member's Role",
  notes:
    'Changes a member\'s access: `{"role": "READ_ONLY"}` (a named role) or `{"permissions": [...]}` (a custom set, ' +
    "public role MEMBER). It applies to the member's next request. 403: granting a permission the caller does not " +
    'hold, changing a member who holds one, or making or changing an owner without being one. 409: the last owner ' +
    'would stop being one. 404: not a member of this organization.',
  auth: 'bearer',
  permission: 'write:member',
  audit: 'USER_MODIFIED',
  body: updateMemberBody,
  response: 'hawk.MemberResponse',
} satisfies Route;

export const removeMemberRoute = {
  operationId: 'removeMember',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/members/{userId}',
  tag: 'Organizations',
  summary: 'Remove a Member',
  notes:
    "Removes a member and their place in the organization's teams. Their next request to the organization is " +
    'refused, and so is refreshing their token when no other organization with API access is left to them; their ' +
    'API keys stay theirs. 409: the last owner; 403 and 404 as updateMember.',
  auth: 'bearer',
  permission: 'write:member',
  audit: 'REMOVE_USER',
  response: 'hawk.Empty',
} satisfies Route;

export const createInvitationRoute = {
  operationId: 'createInvitation',
  method: 'POST',
  path: '/api/v1/org/{orgId}/invitations',
  tag: 'Organizations',
  summary: 'Invite a Member',
  notes:
    'Invites an e-mail address with a named `role` (default MEMBER) or a custom `permissions` set, within what the ' +
    'caller holds (403 otherwise; only owners invite owners). Optional `expiresAt` (ISO 8601 or ms since the epoch; ' +
    'default 7 days, at most 30). The answer holds the `token`, shown only here (only its hash is stored): it stands ' +
    'in for the e-mail and works once, with acceptInvitation. 409: already a member, or 200 invitations pending.',
  auth: 'bearer',
  permission: 'write:member',
  audit: 'INVITE_USER',
  body: createInvitationBody,
  response: 'hawk.CreatedInvitation',
} satisfies Route;

export const listInvitationsRoute = {
  operationId: 'listInvitations',
  method: 'GET',
  path: '/api/v1/org/{orgId}/invitations',
  tag: 'Organizations',
  summary: 'List Pending Invitations',
  notes: 'The pending invitations (not expired), oldest first: never their tokens.',
  auth: 'bearer',
  permission: 'write:member',
  response: 'hawk.InvitationList',
} satisfies Route;

export const revokeInvitationRoute = {
  operationId: 'revokeInvitation',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/invitations/{invitationId}',
  tag: 'Organizations',
  summary: 'Revoke an Invitation',
  notes: "Revokes a pending invitation: its token stops working at once. 404: not this organization's.",
  auth: 'bearer',
  permission: 'write:member',
  audit: 'USER_INVITE_REVOKED',
  response: 'hawk.Empty',
} satisfies Route;

export const acceptInvitationRoute = {
  operationId: 'acceptInvitation',
  method: 'POST',
  path: '/api/v1/invitations/accept',
  tag: 'Organizations',
  summary: 'Accept an Invitation',
  notes:
    'Accepts an invitation with its `token`, without credentials (limited per source address), for an address that ' +
    'has no user yet: the user is created (named `fullName`, or after the address) as a member with the invited ' +
    "role, and the answer holds the user's first API key (`apiKey`), shown only here. 401: the address already has " +
    'a user, who accepts signed in (acceptInvitationAsUser); the invitation is kept. 404: used, revoked or unknown; ' +
    '410: expired.',
  auth: 'none',
  audit: 'USER_JOINED_ORG',
  body: acceptInvitationBody,
  response: 'hawk.AcceptedInvitation',
} satisfies Route;

export const acceptInvitationAsUserRoute = {
  operationId: 'acceptInvitationAsUser',
  method: 'POST',
  path: '/api/v1/user/invitations/accept',
  tag: 'User',
  summary: 'Accept an Invitation as the Signed-in User (ours)',
  notes:
    "The caller's own account joins the organization with the invited role; no key is issued. The invitation must " +
    "be for the caller's e-mail address (403 otherwise) and the session of an unrestricted key (401 for a narrowed " +
    'one). 404: used, revoked or unknown; 410: expired; 409: already a member.',
  auth: 'bearer',
  audit: 'USER_JOINED_ORG',
  body: acceptInvitationAsUserBody,
  response: 'hawk.AcceptedInvitation',
} satisfies Route;

// ---- Hosted OAS and global configuration (docs/HOSTED-ASSETS.md)
export const uploadOASForApplicationRoute = {
  operationId: 'uploadOASForApplication',
  method: 'POST',
  path: '/api/v1/oas/{appId}/upload',
  tag: 'Hosted OAS',
  summary: 'Upload OpenAPI Specification',
  notes: note(
    () =>
      'The raw OpenAPI 3.0 or 3.1 description, YAML or JSON (a JSON body may also be a JSON string holding it), ' +
      `at most ${MiB(DESCRIPTION_LIMITS.maxBytes)} (413 above), with ${documentLimits(DESCRIPTION_LIMITS)}, and at most ` +
      `${DESCRIPTION_LIMITS.maxExpandedNodes} values once its internal \`$ref\`s are expanded (413/400 naming the limit). ` +
      `Validation stops after ${DESCRIPTION_VALIDATION.timeoutMs / 1000} s or ${DESCRIPTION_VALIDATION.maxHeapMb} MB of memory (413: split or simplify it). ` +
      'It is validated before it is stored: 400 says what is wrong and where (JSON ' +
      'pointer, line). One description per application, its `oasId` being the application id; re-uploading ' +
      'replaces it. 404: unknown application; 403: no `write:scan_config` for the application (team rules ' +
      'included). The response gives a presigned URL of the stored description.',
  ),
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ORGANIZATION_CONFIGURATION_MODIFIED',
  rawBody: { contentTypes: DESCRIPTION_CONTENT_TYPES, maxBytes: MAX_DESCRIPTION_BYTES },
  response: 'hawk.UploadOASResponse',
  mediaTypes: ['application/json'],
} satisfies Route;

export const getHostedOASForOrgRoute = {
  operationId: 'getHostedOASForOrg',
  method: 'GET',
  path: '/api/v1/oas/{orgId}/{oasId}',
  tag: 'Hosted OAS',
  summary: 'Get hosted OpenAPI Specification',
  notes:
    'The uploaded description of application `oasId`, as a short-lived presigned download URL; ' +
    '`redirect=true` answers 307 to it instead (with the same JSON body).',
  auth: 'bearer',
  permission: 'read:scan_config',
  query: schema(() => z.object({ redirect: redirectParam(false) })),
  response: 'configuration.GetHostedAssetResponse',
  mediaTypes: ['application/json'],
} satisfies Route;

export const listOASAssetsForOrgRoute = {
  operationId: 'listOASAssetsForOrg',
  method: 'GET',
  path: '/api/v1/oas/{orgId}/list',
  tag: 'Hosted OAS',
  summary: 'List hosted OpenAPI Specifications',
  notes:
    "The organization's hosted descriptions the caller may see (team rules of the application that uploaded each, " +
    '`oasId` being its id): each uploaded description once with no repository, and once more for each registered ' +
    'repository that lists it (`openApiSpecs` of PUT /api/v1/org/{orgId}/repos) with `repositoryId`, ' +
    '`repositoryName` and `sourceRootPath`. A `repoIds` filter keeps only those of the named repositories. ' +
    '`sortField` repoId (default) or repoName.',
  auth: 'bearer',
  permission: 'read:scan_config',
  query: schema(() =>
    z.object({
      pageSize: pageSizeParam(),
      pageToken: pageTokenParam(),
      page: v2PageParam(),
      sortField: caseInsensitiveEnum(['repoId', 'repoName']),
      sortDir: caseInsensitiveEnum(['asc', 'desc']),
      repoIds: uuidListParam(),
    }),
  ),
  response: 'hawk.ListOASAssetResponse',
  mediaTypes: ['application/json'],
} satisfies Route;

export const getApplicationMappedOASRoute = {
  operationId: 'getApplicationMappedOAS',
  method: 'GET',
  path: '/api/v1/oas/{appId}/mapping',
  tag: 'Hosted OAS',
  summary: 'Get OpenAPI Specifications mapped to an application',
  notes: "The application's uploaded description (if any) and the repository-sourced descriptions it includes.",
  auth: 'bearer',
  permission: 'read:scan_config',
  response: 'app_oas.GetApplicationMappedOASResponse',
  mediaTypes: ['application/json'],
} satisfies Route;

export const toggleApplicationOASMappingRoute = {
  operationId: 'toggleApplicationOASMapping',
  method: 'POST',
  path: '/api/v1/oas/{appId}/mapping',
  tag: 'Hosted OAS',
  summary: 'Toggle an OpenAPI Specification mapping',
  notes:
    'Includes (`include: true`) or excludes (`include` false or absent) the repository-sourced description ' +
    '`oasId` for the application. Idempotent: a request that changes nothing writes nothing.',
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ORGANIZATION_CONFIGURATION_MODIFIED',
  body: mappingRequestSchema,
  response: 'app_oas.GetApplicationMappedOASResponse',
  mediaTypes: ['application/json'],
} satisfies Route;

export const getGlobalConfigurationRoute = {
  operationId: 'getGlobalConfiguration',
  method: 'GET',
  path: '/api/v1/global-configuration/{configName}',
  tag: 'Global Configuration',
  summary: 'Get Global Configuration',
  notes:
    'A global HawkScan configuration published by an operator. Answers 307 to a short-lived presigned URL ' +
    '(the body holds the JSON hosted-asset response too); `redirect=false` answers 200 with that JSON. The ' +
    'permission is needed in at least one organization. 409 for one holding a literal credential, which is never ' +
    'served (docs/HOSTED-SCANS.md, "Scan configurations and their credentials").',
  auth: 'bearer',
  permission: 'read:scan_config',
  params: schema(() => z.object({ configName: configNameSchema })),
  query: schema(() => z.object({ redirect: redirectParam(true) })),
  response: 'configuration.GetHostedAssetResponse',
  mediaTypes: ['application/json'],
} satisfies Route;

// ---- Organization scan configurations (docs/DATA-MODEL.md "Organization scan configurations and environment default
// configurations")
export const validateScanConfigurationRoute = {
  operationId: 'validateScanConfiguration',
  method: 'POST',
  path: '/api/v1/configuration/{orgId}/validate',
  tag: 'Scan Configuration',
  summary: 'Validate Scan Configuration',
  notes:
    'Checks `conf` (a stackhawk.yml) as the scanner client does (its config schema: `app.applicationId`, `env`, ' +
    '`host`, `authentication`...) and stores nothing. Each problem is a marker naming its key path (`code`) and ' +
    "its position; no markers: valid. `${VAR}` references are left to the scanner's environment. `name` only " +
    'labels the markers (`resource`, default stackhawk.yml).',
  auth: 'bearer',
  permission: 'read:scan_config',
  body: validateScanConfigurationBody,
  response: 'configuration.ValidatedAssetResponse',
} satisfies Route;

export const setScanConfigurationForOrgRoute = {
  operationId: 'setScanConfigurationForOrg',
  method: 'POST',
  path: '/api/v1/configuration/{orgId}/update',
  tag: 'Scan Configuration',
  summary: 'Update App or Organization Scan Configuration',
  notes:
    "Creates or replaces the organization's configuration `name` (letters, digits, _ and -, at most 64). `conf` " +
    'must be one YAML mapping, at most 256 KiB (400 naming the line otherwise); use validate to check it against ' +
    "the scanner's schema. The type is read from `configType` or `type` (hawkop), ORG by default. Readers see " +
    "the old text or the new one, never a mix. Literal credentials move into the organization's scan secrets and " +
    'the text keeps `${NAME}` references (comments and layout kept): `movedSecrets` (ours) names them ' +
    '(docs/HOSTED-SCANS.md, "Scan secrets").',
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ORGANIZATION_CONFIGURATION_MODIFIED',
  body: upsertScanConfigurationBody,
  response: 'hawk.SavedScanConfig',
} satisfies Route;

export const renameScanConfigurationForOrgRoute = {
  operationId: 'renameScanConfigurationForOrg',
  method: 'POST',
  path: '/api/v1/configuration/{orgId}/rename',
  tag: 'Scan Configuration',
  summary: 'Rename an Organization Scan Configuration',
  notes: 'Renames `originalName` to `newName` (404 when `originalName` does not exist, 409 when `newName` does).',
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ORGANIZATION_CONFIGURATION_MODIFIED',
  body: renameScanConfigurationBody,
  response: 'empty',
} satisfies Route;

export const listScanConfigurationsForOrgRoute = {
  operationId: 'listScanConfigurationsForOrg',
  method: 'GET',
  path: '/api/v1/configuration/{orgId}/list',
  tag: 'Scan Configuration',
  summary: 'List Organization Scan Configuration',
  notes: note(
    () =>
      "The organization's configurations by name (case-insensitive); `query` keeps names containing it. " +
      `Organization configurations belong to the organization, not to a team. ${v1Paging('empty')}`,
  ),
  auth: 'bearer',
  permission: 'read:scan_config',
  query: listScanConfigurationsQuery,
  response: 'configuration.ListOrganizationScanConfigurationsResponse',
} satisfies Route;

export const getScanConfigurationForOrgRoute = {
  operationId: 'getScanConfigurationForOrg',
  method: 'GET',
  path: '/api/v1/configuration/{orgId}/{configName}',
  tag: 'Scan Configuration',
  summary: 'Get Organization Scan Configuration',
  notes:
    "The configuration's YAML as a short-lived presigned download URL; `redirect=true` answers 307 to it " +
    'instead (with the same JSON body). A configuration named `list` is reachable by rename and delete only. ' +
    'Its text never holds a literal credential: 409 for one stored before credentials moved to scan secrets and ' +
    'not migrated yet (docs/HOSTED-SCANS.md, "Scan configurations and their credentials").',
  auth: 'bearer',
  permission: 'read:scan_config',
  params: schema(() => z.object({ configName: configNameSchema })),
  query: schema(() => z.object({ redirect: redirectParam(false) })),
  response: 'configuration.GetHostedAssetResponse',
  mediaTypes: ['application/json'],
} satisfies Route;

export const deleteScanConfigurationForOrgRoute = {
  operationId: 'deleteScanConfigurationForOrg',
  method: 'DELETE',
  path: '/api/v1/configuration/{orgId}/{configName}',
  tag: 'Scan Configuration',
  summary: 'Delete Organization Scan Configuration',
  notes: 'Deletes the configuration (404 when there is none of that name).',
  auth: 'bearer',
  permission: 'delete:scan_config',
  audit: 'ORGANIZATION_CONFIGURATION_REMOVED',
  params: schema(() => z.object({ configName: configNameSchema })),
  response: 'empty',
} satisfies Route;

// ---- Scan policies (docs/SCAN-POLICIES.md)
export const allStackHawkScanPoliciesRoute = {
  operationId: 'allStackHawkScanPolicies',
  method: 'GET',
  path: '/api/v1/policy/all',
  tag: 'Scan Policies',
  summary: 'List StackHawk Scan Policies',
  notes:
    "The built-in policies: DEFAULT (every scan rule), API (ZAP's API policy's active rules and every passive rule) " +
    "and PASSIVE (passive rules only). Plugins are ZAP's scan rules (docs/SCAN-POLICIES.md). The permission is " +
    'needed in at least one organization.',
  auth: 'bearer',
  permission: 'read:policy',
  response: 'scanpolicy.ListScanPoliciesResponse',
} satisfies Route;

export const getStackHawkScanPolicyRoute = {
  operationId: 'getStackHawkScanPolicy',
  method: 'GET',
  path: '/api/v1/policy',
  tag: 'Scan Policies',
  summary: 'Get StackHawk Scan Policy',
  notes: 'One built-in policy (DEFAULT when `policyName` is absent); `status` NOT_FOUND for an unknown name.',
  auth: 'bearer',
  permission: 'read:policy',
  query: policyNameQuery,
  response: 'application.GetApplicationScanPolicyResponse',
} satisfies Route;

export const setScanPolicyForOrgRoute = {
  operationId: 'setScanPolicyForOrg',
  method: 'POST',
  path: '/api/v1/policy/{orgId}/update',
  tag: 'Scan Policies',
  summary: 'Update Organization Scan Policy',
  notes:
    'Creates or replaces the organization policy `scanPolicy.name` (capitals, digits and _; not a built-in name). ' +
    'Listed plugins take their `enabled`; plugins not listed are disabled. Unknown plugin ids or tech flags: 400 ' +
    'naming them. Tech flags not given are on.',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'ORGANIZATION_POLICY_MODIFIED',
  body: upsertOrganizationPolicyBody,
  response: 'empty',
} satisfies Route;

export const listScanPoliciesForOrgRoute = {
  operationId: 'listScanPoliciesForOrg',
  method: 'GET',
  path: '/api/v1/policy/{orgId}/list',
  tag: 'Scan Policies',
  summary: 'List Organization Scan Policies',
  notes: note(
    () =>
      "The organization's own policies, by `name` (default) or `displayName`; `nextPage` and `prevPage` describe the " +
      `neighbouring pages (number, size, sort) when they exist. ${v1Paging('empty')}`,
  ),
  auth: 'bearer',
  permission: 'read:policy',
  query: listOrganizationPoliciesQuery,
  response: 'scanpolicy.ListOrganizationScanPoliciesResponse',
} satisfies Route;

export const getScanPolicyForOrgRoute = {
  operationId: 'getScanPolicyForOrg',
  method: 'GET',
  path: '/api/v1/policy/{orgId}/{policyName}',
  tag: 'Scan Policies',
  summary: 'Get Organization Scan Policy',
  notes:
    'The policy as a JSON `scanpolicy.ScanPolicy` document behind a short-lived presigned download URL; ' +
    '`redirect=true` answers 307 to it instead.',
  auth: 'bearer',
  permission: 'read:policy',
  params: schema(() => z.object({ policyName: policyNameSchema })),
  query: schema(() => z.object({ redirect: redirectParam(false) })),
  response: 'configuration.GetHostedAssetResponse',
  mediaTypes: ['application/json'],
} satisfies Route;

export const deleteScanPolicyForOrgRoute = {
  operationId: 'deleteScanPolicyForOrg',
  method: 'DELETE',
  path: '/api/v1/policy/{orgId}/{policyName}',
  tag: 'Scan Policies',
  summary: 'Delete Organization Scan Policy',
  notes: 'Deletes the organization policy. Applications assigned from it keep their copy of its plugins.',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'ORGANIZATION_POLICY_REMOVED',
  params: schema(() => z.object({ policyName: policyNameSchema })),
  response: 'empty',
} satisfies Route;

export const getApplicationScanPolicyRoute = {
  operationId: 'getApplicationScanPolicy',
  method: 'GET',
  path: '/api/v1/app/{appId}/policy',
  tag: 'Scan Policies',
  summary: 'Get Application Scan Policy',
  notes:
    "The application's policy: its own (assigned, then toggled) or DEFAULT with every tech flag on. `policyName` " +
    'answers that built-in or organization policy instead; `policyConfigured=true` answers `status` NOT_FOUND ' +
    'unless the application has a policy of its own. Team-owned applications: team members only. The effective ' +
    "policy also appears as `conf.app.scanPolicy` in Get Application Config when the scan's configuration names none.",
  auth: 'bearer',
  permission: 'read:policy',
  query: applicationPolicyQuery,
  response: 'application.GetApplicationScanPolicyResponse',
} satisfies Route;

export const assignAppPluginsRoute = {
  operationId: 'assignAppPlugins',
  method: 'PUT',
  path: '/api/v1/app/{appId}/policy/assign',
  tag: 'Scan Policies',
  summary: 'Assign Scan Policy',
  notes:
    "The application's plugins become those of the built-in or organization policy `policyName` (400 naming " +
    'an unknown one); its tech flags stay.',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  query: policyNameQuery,
  response: 'application.UpdateApplicationScanPolicyResponse',
} satisfies Route;

export const toggleAppPluginRoute = {
  operationId: 'toggleAppPlugin',
  method: 'GET',
  path: '/api/v1/app/{appId}/policy/plugins/{pluginId}/{toggle}',
  tag: 'Scan Policies',
  summary: 'Toggle Application Scan Policy Plugin',
  notes:
    "Enables or disables one plugin of the application's policy (400 when `pluginId` is not one of its plugins). " +
    'A GET that changes state, as in the public API.',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  params: togglePluginParams,
  response: 'application.UpdateApplicationScanPolicyResponse',
} satisfies Route;

export const getAppTechFlagsRoute = {
  operationId: 'getAppTechFlags',
  method: 'GET',
  path: '/api/v1/app/{appId}/policy/flags',
  tag: 'Scan Policies',
  summary: 'Get Tech Flags',
  notes: 'Every tech flag with its value for the application (true unless set otherwise), as a bare JSON map.',
  auth: 'bearer',
  permission: 'read:policy',
  response: 'hawk.TechFlags',
  responseField: 'techFlags',
} satisfies Route;

export const updateAppTechFlagsRoute = {
  operationId: 'updateAppTechFlags',
  method: 'PUT',
  path: '/api/v1/app/{appId}/policy/flags',
  tag: 'Scan Policies',
  summary: 'Update Tech Flags',
  notes:
    'Sets the given flags, leaving the others as they are. The body is the map itself or `{"techFlags": {...}}` ' +
    '(stackhawk-mcp). Unknown flags: 400 naming them.',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'TECH_FLAG_MODIFIED',
  body: techFlagsBody,
  response: 'application.UpdateApplicationScanPolicyResponse',
} satisfies Route;

// ---- Repositories (docs/DATA-MODEL.md "Repositories")
export const registerRepositoryRoute = {
  operationId: 'registerRepository',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/repos',
  tag: 'Repositories',
  summary: 'Register or update a repository (this service)',
  notes:
    "This service's own operation (the public API learns repositories from source-control integrations): " +
    'registers a repository, or updates the one with the same `repoSource` and `name` (case-insensitive; its id ' +
    "is derived from them). Fields not given keep their value. `commitCount` is the last 30 days' commits, as " +
    'the caller counts them. Mapped applications are kept. `openApiSpecs` (when given, the complete list) names ' +
    'uploaded descriptions of the organization (`oasId`, 400 for any the caller cannot see) and the path in the ' +
    'repository each describes: listed by List OAS Assets and counted in `openApiSpecInfo`.',
  auth: 'bearer',
  permission: 'write:repository',
  audit: 'REPO_MODIFIED',
  body: registerRepositoryBody,
  response: 'repository.Repository',
} satisfies Route;

export const listRepositoriesRoute = {
  operationId: 'listRepositories',
  method: 'GET',
  path: '/api/v1/org/{orgId}/repos',
  tag: 'Repositories',
  summary: 'List Repositories',
  notes:
    "The organization's registered repositories; `appInfos` lists the mapped applications the caller may see " +
    '(team rules); `status` is COVERED when it lists one, NOT_COVERED when not. The filters (`repoFilter`, ' +
    '`appFilter`, `webAppFilter`, `uncoveredRepoFilter`, `filters`; all apply) are answered from the registered ' +
    'records: MAPPED_REPOS and REPOS_IN_ATTACK_SURFACE (a repository is in the attack surface when it is mapped), ' +
    'their opposites, HIDDEN_REPOS (none are hidden), REPOS_WITH_APP_SCANS and REPOS_WITH_NO_APP_SCANS (a mapped ' +
    'application has a scan), REPOS_WITH_RECENT_SCANS (within 30 days), REPOS_WITH_GENERATED_OAS (it lists API ' +
    'descriptions). WEB_APP_REPOS, UNCOVERED_REPOS and the insight filters need what only a source-control ' +
    'integration computes from the code, and answer 400 saying so; so do `langIds`, `topicIds`, `integrationIds` ' +
    'and `sensitiveDataTags`. `recentCommitTimeframe` uses `lastCommitTimestamp` (a repository registered without ' +
    'it matches no timeframe). `nextPageKey` is the `page` key of the next page (`p_<n>`); `prevPageKey` is ' +
    'always blank, as documented.',
  auth: 'bearer',
  permission: 'read:repository',
  query: listRepositoriesQuery,
  response: 'repository.SearchRepositoriesResponse',
} satisfies Route;

export const createAppsForReposRoute = {
  operationId: 'createAppsForRepos',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/repos/apps',
  tag: 'Repositories',
  summary: 'Create Applications for Repositories',
  notes:
    "Creates the applications named in `newRepositoryApps[*].appInfos[*].name` (ENV_INCOMPLETE, for the caller's " +
    'first team, as Create Application does; `write:application` is needed as well) and maps each to its ' +
    'repository, all in one transaction (APPLICATION_ADDED per application too). At most 20 applications and 10 ' +
    'repositories per request; 400 names unknown repositories.',
  auth: 'bearer',
  permission: 'write:repository',
  audit: 'APPLICATIONS_ADDED_FOR_REPOS',
  body: createAppsForReposBody,
  response: 'repository.AddApplicationToRepoResponse',
} satisfies Route;

export const replaceRepoAppMappingsRoute = {
  operationId: 'replaceRepoAppMappings',
  method: 'POST',
  path: '/api/v1/org/{orgId}/repo/{repoId}/applications',
  tag: 'Repositories',
  summary: 'Replace Repository Applications',
  notes:
    "Replaces the repository's applications with `appInfos[*].id` (other fields are ignored); 400 names ids that " +
    'are not applications of the organization the caller may see. Mappings to applications of teams the caller ' +
    'is not in are kept. A request that changes nothing writes nothing.',
  auth: 'bearer',
  permission: 'write:repository',
  audit: 'APPLICATIONS_ADDED_FOR_REPOS',
  body: replaceMappingsBody,
  response: 'repository.ReplaceRepositoryAppMappingsResponse',
} satisfies Route;

export const listRepoSensitiveDataRoute = {
  operationId: 'listRepoSensitiveData',
  method: 'GET',
  path: '/api/v1/org/{orgId}/repo/{repoId}/sensitive/list',
  tag: 'Repositories',
  summary: 'List Repo Sensitive Data',
  notes: 'Empty: nothing supplies sensitive-data findings yet. 404 for an unknown repository.',
  auth: 'bearer',
  permission: 'read:repository',
  query: listSensitiveDataQuery,
  response: 'codeWord.ListSensitiveDataWordsResponse',
} satisfies Route;

// ---- Applications, environments and the audit log (docs/API.md; docs/DATA-MODEL.md)
export const createApplicationRoute = {
  operationId: 'createApplication',
  method: 'POST',
  path: '/api/v1/org/{orgId}/app',
  tag: 'Applications',
  summary: 'Create Application',
  notes:
    'Nothing is required (a name is strongly encouraged); unknown fields are ignored. An `env` creates that ' +
    'environment too (ENVIRONMENT_ADDED; its default scan configuration gets `host`), making the application ' +
    'ACTIVE; without one it is ENV_INCOMPLETE. A caller who belongs to a team creates the application for its ' +
    'team (`teamId` picks one of its teams). The response does not populate `env` and `envId`.',
  auth: 'bearer',
  permission: 'write:application',
  audit: 'APPLICATION_ADDED',
  body: createApplicationBody,
  response: 'application.Application',
} satisfies Route;

export const getApplicationRoute = {
  operationId: 'getApplication',
  method: 'GET',
  path: '/api/v1/app/{appId}',
  tag: 'Applications',
  summary: 'Get Application',
  notes: 'A team-owned application is visible to its team members only (401 for others).',
  auth: 'bearer',
  permission: 'read:application',
  response: 'application.Application',
} satisfies Route;

export const updateApplicationRoute = {
  operationId: 'updateApplication',
  method: 'POST',
  path: '/api/v1/app/{appId}',
  tag: 'Applications',
  summary: 'Update Application',
  notes: 'Only the name changes; other fields are ignored. Team-owned applications: team members only.',
  auth: 'bearer',
  permission: 'write:application',
  audit: 'APPLICATION_MODIFIED',
  body: updateApplicationBody,
  response: 'application.Application',
} satisfies Route;

export const deleteApplicationRoute = {
  operationId: 'deleteApplication',
  method: 'DELETE',
  path: '/api/v1/app/{appId}',
  tag: 'Applications',
  summary: 'Delete Application',
  notes:
    'Team-owned applications: team members only (401 otherwise). Permanently deletes the application with all its environments, scan results, stored configurations and ' +
    'uploaded API description. The application disappears at once; should the request be interrupted, ' +
    'repeating it finishes the deletion.',
  auth: 'bearer',
  permission: 'delete:application',
  audit: 'APPLICATION_REMOVED',
  response: 'empty',
} satisfies Route;

export const createEnvironmentRoute = {
  operationId: 'createEnvironment',
  method: 'POST',
  path: '/api/v1/app/{appId}/env',
  tag: 'Applications',
  summary: 'Create Environment',
  notes:
    'Team-owned applications: team members only (401 otherwise). Concurrent creations in one application may ' +
    'answer 409: nothing was created, retry. Environment names are unique per application, case-insensitively (409 otherwise). The new environment ' +
    'gets a default hosted scan configuration naming `host`. Returns the application with `env` and `envId` ' +
    'populated.',
  auth: 'bearer',
  permission: 'write:application',
  audit: 'ENVIRONMENT_ADDED',
  query: createEnvironmentQuery,
  body: createEnvironmentBody,
  response: 'application.Application',
} satisfies Route;

export const updateEnvironmentRoute = {
  operationId: 'updateEnvironment',
  method: 'POST',
  path: '/api/v1/app/{appId}/env/{envId}',
  tag: 'Applications',
  summary: 'Update Environment',
  notes:
    'Only the name changes (409 if another environment of the application has it). Team-owned applications: ' +
    'team members only.',
  auth: 'bearer',
  permission: 'write:application',
  audit: 'ENVIRONMENT_MODIFIED',
  body: updateEnvironmentBody,
  response: 'application.Application',
} satisfies Route;

export const getEnvironmentDefaultConfigRoute = {
  operationId: 'getEnvironmentDefaultConfig',
  method: 'GET',
  path: '/api/v1/app/{appId}/env/{envId}/config/default',
  tag: 'Applications',
  summary: 'Get environment default yaml config',
  notes:
    "The environment's default HawkScan configuration (written when the environment is created, naming its " +
    '`host`, or set by the POST), its credentials shown as `********`, and the SHA-256 of its stored text. Not ' +
    'audited: it changes nothing.',
  auth: 'bearer',
  permission: 'read:scan_config',
  response: 'application.ApplicationConfigResponse',
} satisfies Route;

export const createEnvironmentDefaultConfigRoute = {
  operationId: 'createEnvironmentDefaultConfig',
  method: 'POST',
  path: '/api/v1/app/{appId}/env/{envId}/config/default',
  tag: 'Applications',
  summary: 'Create environment default yaml config',
  notes:
    "Replaces the environment's default configuration with `conf` (a HawkScan configuration object, at most " +
    '256 KiB as JSON; 400 when a value is the `********` a read shows). `applicationId`/`envId`, when given, must ' +
    'be those of the path. Team-owned applications: team members only. Literal credentials move into the ' +
    "application's scan secrets and the configuration keeps `${NAME}` references: `movedSecrets` names them " +
    '(docs/HOSTED-SCANS.md, "Scan secrets").',
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ENVIRONMENT_MODIFIED',
  body: createEnvironmentDefaultConfigBody,
  response: 'hawk.SavedScanConfig',
} satisfies Route;

export const deleteEnvironmentRoute = {
  operationId: 'deleteEnvironment',
  method: 'DELETE',
  path: '/api/v1/app/{appId}/env/{envId}',
  tag: 'Applications',
  summary: 'Delete Environment',
  notes:
    'Team-owned applications: team members only (401 otherwise). Permanently deletes the environment and its scan results; repeating an interrupted request finishes it.',
  auth: 'bearer',
  permission: 'delete:application',
  audit: 'ENVIRONMENT_REMOVED',
  response: 'empty',
} satisfies Route;

export const listEnvsV2Route = {
  operationId: 'listEnvsV2',
  method: 'GET',
  path: '/api/v2/org/{orgId}/envs',
  tag: 'Applications',
  summary: 'List Environments V2',
  notes:
    'Environments the caller may see (team membership), sorted by `sortField` (default environmentName) then ' +
    'id. List parameters may be comma-joined or repeated; `page=p_N` and `pageToken=N` select page N.',
  auth: 'bearer',
  permission: 'read:application',
  query: listEnvironmentsV2Query,
  response: 'application_view.ListEnvironmentsViewResponse',
} satisfies Route;

export const listAppsV2Route = {
  operationId: 'listAppsV2',
  method: 'GET',
  path: '/api/v2/org/{orgId}/apps',
  tag: 'Applications',
  summary: 'List Applications V2',
  notes:
    'Applications the caller may see (team membership), sorted by `sortField` (default applicationName) then ' + 'id.',
  auth: 'bearer',
  permission: 'read:application',
  query: listApplicationsV2Query,
  response: 'application_view.ListApplicationsResponseV2',
} satisfies Route;

export const listApplicationsRoute = {
  operationId: 'listApplications',
  method: 'GET',
  path: '/api/v1/app/{orgId}/list',
  tag: 'Applications',
  summary: 'List Applications (deprecated)',
  notes: note(
    () =>
      'Deprecated: use List Applications V2. One entry per application-environment (an application without ' +
      'environments appears alone); `ignoreEnvs=true` gives one entry per application. ' +
      v1Paging('empty'),
  ),
  auth: 'bearer',
  permission: 'read:application',
  query: listApplicationsV1Query,
  response: 'application.ListApplicationsResponse',
} satisfies Route;

export const listEnvironmentsRoute = {
  operationId: 'listEnvironments',
  method: 'GET',
  path: '/api/v1/app/{appId}/env/list',
  tag: 'Applications',
  summary: 'List Environments (deprecated)',
  notes: note(() => `Deprecated: use List Environments V2. ${v1Paging('empty')}`),
  auth: 'bearer',
  permission: 'read:application',
  query: listEnvironmentsV1Query,
  response: 'application.ListEnvironmentsResponse',
} satisfies Route;

export const listMembersRoute = {
  operationId: 'listMembers',
  method: 'GET',
  path: '/api/v1/org/{orgId}/members',
  tag: 'Organizations',
  summary: 'List Members',
  notes:
    "The organization's members as users (`external.organizations` holds this organization with the member's " +
    'role, `external.teams` their teams in it). `pattern`: a case-insensitive part of the full name or e-mail ' +
    '(plain text, no wildcards); `roles`: OWNER, ADMIN, MEMBER; sorted by user id (`sortField=id`).',
  auth: 'bearer',
  permission: 'read:member',
  query: listMembersQuery,
  response: 'user.ListUsersResponse',
} satisfies Route;

export const listAuditActivityRoute = {
  operationId: 'listAuditActivity',
  method: 'GET',
  path: '/api/v1/org/{orgId}/audit',
  tag: 'Organizations',
  summary: 'List Audit Activity',
  notes: note(
    () =>
      "The organization's user-activity entries, oldest first unless `sortDir=desc`; `start`/`end` in ms; " +
      '`timestamp` in ms (400 when `start` is after a non-zero `end`); `payload` a JSON object as a string. ' +
      v1Paging('"-1"'),
  ),
  auth: 'bearer',
  permission: 'read:audit',
  query: auditListQuery,
  response: 'audit.ListAuditRecordsResponse',
} satisfies Route;

// ---- Teams (docs/API.md "Teams"; docs/DATA-MODEL.md "Teams")
export const getTeamRoute = {
  operationId: 'getTeam',
  method: 'GET',
  path: '/api/v1/org/{orgId}/team/{teamId}',
  tag: 'Organization Teams',
  summary: 'Get Team',
  notes:
    'The team with its members and applications (each with its environment names). Any member of the ' +
    'organization may call (with `read:team`).',
  auth: 'bearer',
  permission: 'read:team',
  response: 'organization.TeamByIdResponse',
} satisfies Route;

export const updateTeamsRoute = {
  operationId: 'updateTeams',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/team/{teamId}',
  tag: 'Organization Teams',
  summary: 'Update Team',
  notes:
    "**Replace-all**: the body is the team's whole new state. `name` is required; `userIds` and " +
    '`applicationIds` are the complete new lists (absent means empty: every member or application is ' +
    'removed); `teamId` and `organizationId`, if sent, must match the path. To add or remove one member, GET ' +
    'the team, change the list and PUT it back. Users must be members of the organization and applications ' +
    'belong to it (400 otherwise); an application owned by another team moves to this one (an application has ' +
    'at most one team); a removed application is left without a team (visible to the whole organization). ' +
    "Names are unique per organization, case-insensitively (400). The change, with every member's and " +
    "application's copy of it, is one atomic write of at most 100 items (400 above): one per user added or " +
    'removed and per application moved, one per team an application is taken from, one per (application type, ' +
    'team) counter changed, plus the team, its name claim and the audit entry. If another request changes the ' +
    'team while this one is applied, the answer is 409: GET the team again and re-apply the change. ' +
    "Membership changes apply to the members' next request (tokens carry no team claims).",
  auth: 'bearer',
  permission: 'write:team',
  audit: 'TEAM_UPDATED',
  body: updateTeamBody,
  response: 'organization.UpdateTeamResponse',
} satisfies Route;

export const deleteTeamRoute = {
  operationId: 'deleteTeam',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/team/{teamId}',
  tag: 'Organization Teams',
  summary: 'Delete Team',
  notes:
    'Deletes the team only: its applications are left without a team (visible to the whole organization) and ' +
    'its members stay in the organization. One atomic write of at most 100 items: any team of up to 93 users ' +
    'and applications together can be deleted; a larger one may have to be made smaller (PUT) first (400 says ' +
    'so).',
  auth: 'bearer',
  permission: 'delete:team',
  audit: 'TEAM_DELETED',
  response: 'organization.DeleteTeamResponse',
} satisfies Route;

export const updateApplicationTeamRoute = {
  operationId: 'updateApplicationTeam',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/team/{teamId}/application',
  tag: 'Organization Teams',
  summary: 'Update Team Application',
  notes:
    'Makes the team the owner of application `applicationId` (moving it from its previous team, if any). Only ' +
    'members of the team may call (401 otherwise). `teamId` in the body, if sent, must match the path. An ' +
    'application already in the team: 200, nothing written.',
  auth: 'bearer',
  permission: 'write:team',
  audit: 'APPLICATION_MODIFIED',
  body: updateApplicationTeamBody,
  response: 'organization.UpdateApplicationTeamResponse',
} satisfies Route;

export const createTeamRoute = {
  operationId: 'createTeam',
  method: 'POST',
  path: '/api/v1/org/{orgId}/team',
  tag: 'Organization Teams',
  summary: 'Create Team',
  notes:
    'A non-empty `name`, unique in the organization case-insensitively (400 otherwise); optional `userIds` ' +
    '(members of the organization) and `applicationIds` (applications of it; one owned by another team moves ' +
    'to the new team). `organizationId`, if sent, must match the path. The same atomic-write limit as Update ' +
    'Team applies.',
  auth: 'bearer',
  permission: 'write:team',
  audit: 'TEAM_ADDED',
  body: createTeamBody,
  response: 'organization.CreateTeamResponse',
} satisfies Route;

export const listTeamsForOrgAndUserRoute = {
  operationId: 'listTeamsForOrgAndUser',
  method: 'GET',
  path: '/api/v1/org/{orgId}/user/{userId}/teams',
  tag: 'Organization Teams',
  summary: 'Find Teams for User',
  notes: note(
    () =>
      "The caller's teams in the organization, by name. Only the caller's own id may be given as `userId` (401 " +
      `otherwise). ${v1Paging('empty')}`,
  ),
  auth: 'bearer',
  permission: 'read:team',
  query: listTeamsForUserQuery,
  response: 'organization.ListTeamsResponse',
} satisfies Route;

export const listTeamsForOrgRoute = {
  operationId: 'listTeamsForOrg',
  method: 'GET',
  path: '/api/v1/org/{orgId}/teams',
  tag: 'Organization Teams',
  summary: 'Find Teams for Organization',
  notes: note(
    () =>
      "The organization's teams, by name (then id); any member of the organization may call. `search` keeps the " +
      'teams whose name contains it, case-insensitively, `*` standing for any characters (at most ' +
      `${MAX_PATTERN_LENGTH} characters, matched in linear time). ${v1Paging('empty')}`,
  ),
  auth: 'bearer',
  permission: 'read:team',
  query: listTeamsForOrgQuery,
  response: 'organization.ListTeamsResponse',
} satisfies Route;

// ---- Scans: the scanner reports them, the API reads them (docs/DATA-MODEL.md "Scans")
export const reportScanStartedRoute = {
  operationId: 'reportScanStarted',
  method: 'POST',
  path: '/api/v1/app/{appId}/scan',
  tag: 'Scan Results',
  summary: 'Report a scan started (scanner)',
  notes: note(
    () =>
      'The scanner announces a scan of environment `env` (created, with ENVIRONMENT_ADDED, when the application ' +
      'has no environment of that name). `config` is the scan configuration YAML: 400 when it is not valid YAML ' +
      `or not a HawkScan configuration object; at most ${SCAN_CONFIG_LIMITS.maxBytes} characters with ${documentLimits(SCAN_CONFIG_LIMITS)} ` +
      `(413/400 naming the limit; the whole body at most ${MiB(SCAN_START_BODY_BYTES)}). The caller's access to the application is ` +
      'checked before the body is parsed. Concurrent starts creating environments may answer 409: retry. It is stored under its `configHash` (hex SHA-256 of the text). ' +
      "The scan is STARTED and becomes the environment's last scan. Team-owned applications: team members only.",
  ),
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'SCAN_STARTED',
  body: scanStartedBody,
  maxBodyBytes: SCAN_START_BODY_BYTES,
  bodyAfterAccess: true,
  response: 'hawk.ScanStarted',
} satisfies Route;

export const reportScanAlertsRoute = {
  operationId: 'reportScanAlerts',
  method: 'POST',
  path: '/api/v1/scan/{scanId}/alerts',
  tag: 'Scan Results',
  summary: 'Report scan findings (scanner)',
  notes: note(
    () =>
      `Adds findings to a STARTED scan; may be called many times. One request carries at most ${FINDINGS_REPORT_LIMITS.maxAlerts} alerts, ` +
      `${FINDINGS_REPORT_LIMITS.maxUris} URIs in all and ${MiB(FINDINGS_REPORT_LIMITS.maxBytes)} of body (400/413 beyond, naming the ` +
      "limit; the body is parsed only after the caller's access to the scan is checked), and is counted whole or not at all: its findings appear in lists and counts together, or never. " +
      `A report whose storing takes over ${FINDINGS_REPORT_LIMITS.storeBudgetMs / 1000} s (a busy service) is not counted (413: send smaller ones). ` +
      `One alert may receive at most ${FINDINGS_REPORT_LIMITS.maxReportsPerAlert} reports over a scan (413 beyond). Alerts with ` +
      'the same `pluginId` merge: their URIs add up, and the first report of a plugin sets its name, severity, ' +
      'description, cweId and references. Severity is High, Medium, Low or Info (informational: listed and ' +
      'counted in totals, never in the untriaged figures). An optional `reportId` makes the report idempotent: a ' +
      'report with an id the scan has counted adds nothing and answers `alreadyCounted: true`, so a client may ' +
      'resend a report whose answer it lost. 400 once the scan is completed. Not audited (SCAN_STARTED and ' +
      'SCAN_COMPLETED bracket the reporting).',
  ),
  auth: 'bearer',
  permission: 'write:scan',
  body: scanAlertsBody,
  maxBodyBytes: FINDINGS_REPORT_BODY_BYTES,
  bodyAfterAccess: true,
  response: 'hawk.ScanAlertsReported',
} satisfies Route;

export const reportScanCompletedRoute = {
  operationId: 'reportScanCompleted',
  method: 'POST',
  path: '/api/v1/scan/{scanId}/complete',
  tag: 'Scan Results',
  summary: 'Report a scan finished (scanner)',
  notes:
    'Ends a STARTED scan with `status` COMPLETED (audit SCAN_COMPLETED) or ERROR (SCAN_ERRORED): its ' +
    "duration, final statistics and the environment's last-scan fields are set. 400 if the scan already " +
    'ended. Returns the scan result.',
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'SCAN_COMPLETED',
  body: scanCompletedBody,
  response: 'application.ApplicationScanResult',
} satisfies Route;

export const importScanReportRoute = {
  operationId: 'importScanReport',
  method: 'POST',
  path: '/api/v1/app/{appId}/scan/import',
  tag: 'Scan Results',
  summary: "Import a scanner's report (ZAP, Wapiti, Nuclei, Burp Suite, SARIF) as a completed scan (ours)",
  notes: note(
    () =>
      "The body is a scanner's report as the tool wrote it (UTF-8): OWASP ZAP's traditional XML, xml-plus, " +
      "traditional JSON, json-plus or SARIF, Wapiti's JSON or XML, Nuclei's JSON Lines or JSON array, Burp Suite's " +
      "XML issue export (its internal DTD accepted, never expanded; any entity declaration refused), or any tool's " +
      'SARIF 2.1.0 log of one run (docs/IMPORTS.md, with how each maps to our severities). The tool is recognised ' +
      'from the content; a document that could be the report of several tools is refused naming them, and ' +
      '`format` (zap, wapiti, nuclei, burp, sarif) names the tool. The answer names it (`tool`, `toolName`, ' +
      '`format`, `toolVersion`). It is imported as one COMPLETED scan of environment `env` ' +
      '(created, with ENVIRONMENT_ADDED, when new), as if the scanner had reported it: for ZAP one alert per ZAP alert ' +
      '(`alertRef`, else `pluginid`; the same alert across sites merged, identical instances counted once, ' +
      'informational alerts kept with severity `Info`, which the untriaged figures do not count), one finding per ' +
      "instance with its request and response when the report has them, the same `findingHash` as a scanner's " +
      "report, the environment's triage rules applied at once. The report appears whole or not at all, in one " +
      "transaction with SCAN_STARTED and SCAN_COMPLETED. The caller's access to the application is checked before " +
      'the report is read. 400 names what is wrong and where (malformed XML/JSON with line and column, another ' +
      "tool's report, a DOCTYPE, oversized values, no site, an alert counting instances it does not list, a control, " +
      'bidi-override or unpaired surrogate character in an alert name, site or version); ' +
      `413 above ${MiB(IMPORT_LIMITS.maxBytes)}, ${IMPORT_LIMITS.maxUris} findings or ${IMPORT_LIMITS.maxAlerts} alerts, or when the import (reading, ` +
      `storing, publishing) takes over ${IMPORT_LIMITS.budgetMs / 1000} s (nothing imported): the scanner client's CLI imports any size (\`npm run scanner -- import\`). ` +
      'The answer: the scan (as reportScanCompleted answers), the counts imported and the skipped items with the ' +
      'reason (the first 100, then one entry counting the others).',
  ),
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'SCAN_COMPLETED',
  query: importScanQuery,
  rawBody: { contentTypes: IMPORT_CONTENT_TYPES, maxBytes: IMPORT_BODY_BYTES },
  response: 'hawk.ScanImported',
} satisfies Route;

// ---- Scan secrets: `${NAME}` references of scan configurations, kept write-only (docs/HOSTED-SCANS.md, "Scan secrets")
const scanSecretNotes = (owner: string) =>
  `Sets ${owner} scan secret \`name\` (a variable name, at most 128 characters) to \`value\` (at most 8192 ` +
  'characters), sealed, created or replaced, answering 204. A configuration referencing `${name}` resolves it from ' +
  "the application's secrets, then the organization's, then the agent's environment; the agent receives the value " +
  'with the run it takes, only. No read ever returns a value. At most 100 secrets (400). The audit entry names the ' +
  'secret, never its value.';

export const listApplicationScanSecretsRoute = {
  operationId: 'listApplicationScanSecrets',
  method: 'GET',
  path: '/api/v1/app/{appId}/secrets',
  tag: 'Perch',
  summary: "List the application's scan secrets (ours)",
  notes: "The application's scan secrets by name, with when each was last set: never their values.",
  auth: 'bearer',
  permission: 'read:application',
  response: 'hawk.ScanSecretList',
} satisfies Route;

export const setApplicationScanSecretRoute = {
  operationId: 'setApplicationScanSecret',
  method: 'PUT',
  path: '/api/v1/app/{appId}/secrets/{name}',
  tag: 'Perch',
  summary: "Set an application's scan secret (ours)",
  notes: note(() => scanSecretNotes("the application's") + ' Team-owned applications: team members only.'),
  auth: 'bearer',
  permission: 'write:application',
  audit: 'APPLICATION_MODIFIED',
  params: scanSecretParams,
  body: scanSecretBody,
  response: 'noContent',
} satisfies Route;

export const deleteApplicationScanSecretRoute = {
  operationId: 'deleteApplicationScanSecret',
  method: 'DELETE',
  path: '/api/v1/app/{appId}/secrets/{name}',
  tag: 'Perch',
  summary: "Remove an application's scan secret (ours)",
  notes: 'Removes the secret (204); 404 when the application has none of that name.',
  auth: 'bearer',
  permission: 'write:application',
  audit: 'APPLICATION_MODIFIED',
  params: scanSecretParams,
  response: 'noContent',
} satisfies Route;

export const listOrganizationScanSecretsRoute = {
  operationId: 'listOrganizationScanSecrets',
  method: 'GET',
  path: '/api/v1/org/{orgId}/secrets',
  tag: 'Perch',
  summary: "List the organization's scan secrets (ours)",
  notes: "The organization's scan secrets by name, with when each was last set: never their values.",
  auth: 'bearer',
  permission: 'read:scan_config',
  response: 'hawk.ScanSecretList',
} satisfies Route;

export const setOrganizationScanSecretRoute = {
  operationId: 'setOrganizationScanSecret',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/secrets/{name}',
  tag: 'Perch',
  summary: "Set an organization's scan secret (ours)",
  notes: note(() => scanSecretNotes("the organization's")),
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ORG_SETTINGS_MODIFIED',
  params: scanSecretParams,
  body: scanSecretBody,
  response: 'noContent',
} satisfies Route;

export const deleteOrganizationScanSecretRoute = {
  operationId: 'deleteOrganizationScanSecret',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/secrets/{name}',
  tag: 'Perch',
  summary: "Remove an organization's scan secret (ours)",
  notes: 'Removes the secret (204); 404 when the organization has none of that name.',
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ORG_SETTINGS_MODIFIED',
  params: scanSecretParams,
  response: 'noContent',
} satisfies Route;

// ---- Perch: hosted scans (docs/HOSTED-SCANS.md). The public operations, then the agent's, which are ours.
export const startScanRoute = {
  operationId: 'startScan',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/start',
  tag: 'Perch',
  summary: 'Start a hosted scan',
  notes:
    "Queues a hosted scan of a CLOUD application for its organization's scanner agents (docs/HOSTED-SCANS.md) and answers its `scanKey`. " +
    'Body: `{"command":{"command":"START","config":"<stackhawk.yml>"},"env":"<env>"}` or hawkop\'s `{"command":{"command":"START"},"scanConfig":"<organization scan configuration name>","env":...}`; ' +
    'any command string and extra fields are accepted. Ours: `{"command":{"command":"START"},"env":"<env>","defaultConfig":true}` scans with that environment\'s default configuration (createEnvironmentDefaultConfig; 400 when the application has no such environment, or with another configuration). ' +
    "Without a configuration the scan uses `app.host` = the target URL. The run's log (`configuration: ...`), getScanRunLog's `configuration` and its scan's tag `HAWK_SCAN_CONFIGURATION` name the configuration it ran with. " +
    "409: a scan is already running for the application; 400: not a CLOUD application, or its target (or the configuration's `app.host`) is not verified " +
    "(a DNS TXT record or a `/.well-known/hawk-verification.txt` file with the organization's token, or an operator's allowlist), re-checked on every start; 404: unknown application. " +
    'Literal credentials of the configuration move into the application\'s scan secrets and the run keeps `${NAME}` references: `movedSecrets` (ours) names them (docs/HOSTED-SCANS.md, "Scan secrets").',
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'SCAN_STARTED',
  body: perchCommandBody,
  response: 'user.ProvisionPerchResponse',
} satisfies Route;

export const stopScanRoute = {
  operationId: 'stopScan',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/stop',
  tag: 'Perch',
  summary: 'Stop a hosted scan',
  notes:
    "Stops the application's hosted scan, queued or running: its agent stops the engine, the scan ends in ERROR (findings reported before the stop are kept) " +
    'and the device is free at once. Answers `HOSTED_SCANNER_DISCONNECTED`; 404 when no scan is active.',
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'SCAN_ERRORED',
  body: perchCommandBody,
  response: 'perch.PerchCommandResponse',
} satisfies Route;

export const getScanStatusRoute = {
  operationId: 'getScanStatus',
  method: 'GET',
  path: '/api/v1/app/{appId}/perch/status',
  tag: 'Perch',
  summary: 'Get the status of a scan',
  notes:
    'The current or last hosted scan as a `perch.PerchDevice`: status RUNNING for the whole active scan (queued or carried out), ' +
    'HOSTED_SCANNER_DISCONNECTED once completed or stopped, HOSTED_SCANNER_ERRORED with `command.errors` (AUTHENTICATION, PROVISIONING, DEVICE, UNKNOWN) when it failed. ' +
    'A scan whose agent stopped sending heartbeats ends in ERROR (DEVICE) when read. `{}` when the application never had one.',
  auth: 'bearer',
  permission: 'read:device',
  response: 'perch.GetPerchDeviceResponse',
} satisfies Route;

export const searchDevicesRoute = {
  operationId: 'searchDevices',
  method: 'POST',
  path: '/api/v1/org/{orgId}/perch/status',
  tag: 'Perch',
  summary: 'Search devices for multiple apps',
  notes:
    'The hosted scans of the applications in the `queryAppIds` filter (`page.filters[{name:"queryAppIds", value:"id,id"}]` or `multi.values`), at most 100; ' +
    "none without the filter. 403 when one of them is not the organization's (or not visible to the caller's teams). A scan whose agent went silent shows OFFLINE.",
  auth: 'bearer',
  permission: 'read:device',
  body: searchDevicesBody,
  response: 'perch.SearchDevicesResponse',
} satisfies Route;

export const verifyScanTargetRoute = {
  operationId: 'verifyScanTarget',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/verify',
  tag: 'Perch',
  summary: "Verify a CLOUD application's scan target (ours)",
  notes:
    "Checks the CLOUD application's target now and records the outcome (`cloudScanTarget.isDomainVerified`): allowlisted by an operator, or the organization's `token` " +
    'in a DNS TXT record at `dnsRecordName` or in the file at `wellKnownUrl` (fetched at the address resolved once, never a private one). `problem` says what to do.',
  auth: 'bearer',
  permission: 'write:scan',
  response: 'hawk.ScanTargetVerification',
} satisfies Route;

export const getScanRunLogRoute = {
  operationId: 'getScanRunLog',
  method: 'GET',
  path: '/api/v1/app/{appId}/perch/log',
  tag: 'Perch',
  summary: "A hosted scan's state, phase and log (ours)",
  notes:
    "A hosted scan's state, phase, errors and log (agent events, engine output, each phase with its time), the current or last one unless `scanKey` names an earlier one.",
  auth: 'bearer',
  permission: 'read:device',
  query: readRunLogQuery,
  response: 'hawk.ScanRunLog',
  mediaTypes: ['application/json'],
} satisfies Route;

export const listDevicesRoute = {
  operationId: 'listDevices',
  method: 'GET',
  path: '/api/v1/org/{orgId}/perch/devices',
  tag: 'Perch',
  summary: "The organization's scanner agents, their status and current scan (ours)",
  notes:
    "The organization's scanner agents: each one's status (ONLINE, or OFFLINE when not heard from for the offline window; an idle one's 5 minutes longer, its heartbeat written every 5 minutes), last heartbeat, " +
    'engines and the hosted scan it carries (`scanKey`, `applicationId`; empty when idle). At most 100: registering one more replaces the idle agent silent the longest.',
  auth: 'bearer',
  permission: 'read:device',
  response: 'hawk.DeviceList',
} satisfies Route;

export const registerDeviceRoute = {
  operationId: 'registerDevice',
  method: 'POST',
  path: '/api/v1/org/{orgId}/perch/devices',
  tag: 'Perch',
  summary: 'Register a scanner agent (agent; ours)',
  notes: note(
    () =>
      "A scanner agent (`hawk-scanner agent`) becomes a device of the organization, the registering user's: only that user's sessions drive it. " +
      "Sending its `deviceId` again re-registers the same device (a scan it was carrying ends in ERROR); another user's device id makes a new device, as an unknown id does. Answers how often to poll. " +
      `\`labels\` (\`key=value\`, at most ${MAX_AGENT_LABELS}, each key once) say where it runs: it is offered the runs whose required labels it carries, and those requiring none.`,
  ),
  auth: 'bearer',
  permission: 'write:device',
  body: registerDeviceBody,
  response: 'hawk.RegisteredDevice',
} satisfies Route;

export const getHostedScanSettingsRoute = {
  operationId: 'getHostedScanSettings',
  method: 'GET',
  path: '/api/v1/app/{appId}/perch/settings',
  tag: 'Perch',
  summary: "A CLOUD application's hosted scan settings: the agent labels its runs require (ours)",
  notes:
    "The labels (`key=value`) an agent must carry to take the application's hosted scans (docs/HOSTED-SCANS.md, Agent pools); empty: any agent of the organization.",
  auth: 'bearer',
  permission: 'read:application',
  response: 'hawk.HostedScanSettings',
} satisfies Route;

export const updateHostedScanSettingsRoute = {
  operationId: 'updateHostedScanSettings',
  method: 'PUT',
  path: '/api/v1/app/{appId}/perch/settings',
  tag: 'Perch',
  summary: "Set the agent labels a CLOUD application's hosted scans require (ours)",
  notes: note(
    () =>
      `Body: \`{"requiredLabels":["net=internal"]}\` (at most ${MAX_REQUIRED_LABELS}, each key once; \`[]\`: any agent). From the next start, its runs go only to agents registered with every one of these labels ` +
      '(`hawk-scanner agent --labels`); with none online, a run waits queued and its phase says so, until its deadline. On AWS such a run launches no hosted runner. ' +
      "400: a label that is another team's agent pool (named), a bad label, not a CLOUD application; unknown fields are refused.",
  ),
  auth: 'bearer',
  permission: 'write:application',
  audit: 'APPLICATION_MODIFIED',
  body: hostedScanSettingsBody,
  response: 'hawk.HostedScanSettings',
} satisfies Route;

export const listAgentPoolsRoute = {
  operationId: 'listAgentPools',
  method: 'GET',
  path: '/api/v1/org/{orgId}/perch/pools',
  tag: 'Perch',
  summary: "The organization's agent pools: labels only one team's applications may require (ours)",
  notes: "Each pool's `label` and `teamId` (`teamName` empty once the team is deleted).",
  auth: 'bearer',
  permission: 'read:device',
  response: 'hawk.AgentPoolList',
} satisfies Route;

export const replaceAgentPoolsRoute = {
  operationId: 'replaceAgentPools',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/perch/pools',
  tag: 'Perch',
  summary: "Replace the organization's agent pools (ours)",
  notes: note(
    () =>
      `Body: \`{"pools":[{"label":"net=internal","teamId":"<team>"}]}\`, every pool of the organization (at most ${MAX_AGENT_POOLS}, each label once). ` +
      "A pool's label may be required (updateHostedScanSettings) only by its team's applications; an application of another team already requiring it keeps its setting and its starts are refused, naming the label. " +
      '400: an unknown team (named by its index), a bad label; unknown fields are refused.',
  ),
  auth: 'bearer',
  permission: 'write:team',
  audit: 'ORG_SETTINGS_MODIFIED',
  body: agentPoolsBody,
  response: 'hawk.AgentPoolList',
} satisfies Route;

export const pollDeviceCommandRoute = {
  operationId: 'pollDeviceCommand',
  method: 'POST',
  path: '/api/v1/org/{orgId}/perch/devices/{deviceId}/poll',
  tag: 'Perch',
  summary: "Wait for an agent's next command; the heartbeat (agent; ours)",
  notes:
    "The agent's heartbeat and long poll: answers its next command (SCAN_START of a scan whose application the device's owner may see, or SCAN_STOP for the scan it carries) as soon as there is one, " +
    'or nothing after `waitSeconds` (at most 25 s, and half the offline window). A device not heard from for the offline window reads OFFLINE (an idle one 5 minutes later). ' +
    "A revoked key, a removed member or a deleted device is refused by polls within PERCH_POLL_MEMORY_SECONDS (60 s): a poll may be answered from the serving process's memory of them for that long.",
  auth: 'bearer',
  permission: 'write:device',
  body: pollBody,
  response: 'hawk.DeviceCommandPoll',
} satisfies Route;

export const acknowledgeDeviceCommandRoute = {
  operationId: 'acknowledgeDeviceCommand',
  method: 'POST',
  path: '/api/v1/org/{orgId}/perch/devices/{deviceId}/commands/{commandId}/ack',
  tag: 'Perch',
  summary: 'Acknowledge a command by id (agent; ours)',
  notes:
    "Takes a SCAN_START (the scan becomes the device's) or confirms a SCAN_STOP, by command id: acknowledged again by the same device it answers " +
    '`alreadyAcknowledged` (so a command delivered twice runs once); 409 when another device took it or it was stopped.',
  auth: 'bearer',
  permission: 'write:device',
  body: schema(() => z.object({ applicationId: uuidSchema() })),
  response: 'hawk.DeviceCommandAck',
} satisfies Route;

export const updateScanRunRoute = {
  operationId: 'updateScanRun',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/runs/{scanKey}',
  tag: 'Perch',
  summary: "Report a hosted scan's phase or end (agent; ours)",
  notes:
    "The carrying agent reports its phase, its reported scan's id, or the end (COMPLETED, or ERROR with `error.errorType` and message), which frees the device. " +
    'A scan that already ended (stopped) is answered as it is, so the agent stops.',
  auth: 'bearer',
  permission: 'write:device',
  params: scanKeyParams,
  body: runUpdateBody,
  response: 'perch.GetPerchDeviceResponse',
} satisfies Route;

export const reportScanRunStartedRoute = {
  operationId: 'reportScanRunStarted',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/runs/{scanKey}/scan',
  tag: 'Perch',
  summary: "Announce a hosted scan's scan, recorded on its run (agent; ours)",
  notes: note(
    () =>
      "The carrying agent announces its run's scan in one call: the body is reportScanStarted's (same limits and " +
      'errors), the query names the carrying device and the phase the run reached. In one transaction the scan is ' +
      "written as reportScanStarted writes it (SCAN_STARTED) and the run's scanId and phase are set. The answer is " +
      "reportScanStarted's with the run (`device`, as updateScanRun answers it): a run that already ended (stopped) " +
      'writes nothing and answers no scan, so the agent stops; a run that already recorded its scan answers that scan ' +
      "again. 404, before the body is parsed, when the run is not the application's current run carried by that device. " +
      'Needs write:scan besides write:device.',
  ),
  auth: 'bearer',
  permission: 'write:device',
  audit: 'SCAN_STARTED',
  params: scanKeyParams,
  query: runScanStartedQuery,
  body: scanStartedBody,
  maxBodyBytes: SCAN_START_BODY_BYTES,
  bodyAfterAccess: true,
  response: 'hawk.ScanRunStarted',
} satisfies Route;

export const uploadScanRunLogRoute = {
  operationId: 'uploadScanRunLog',
  method: 'PUT',
  path: '/api/v1/app/{appId}/perch/runs/{scanKey}/log',
  tag: 'Perch',
  summary: "Store a hosted scan's log (agent; ours)",
  notes: "The carrying agent stores the scan's whole log so far (text, at most 1 MiB), replacing what it sent before.",
  auth: 'bearer',
  permission: 'write:device',
  params: scanKeyParams,
  query: runLogQuery,
  rawBody: { contentTypes: ['text/plain'], maxBytes: MAX_RUN_LOG_BYTES },
  response: 'empty',
} satisfies Route;

export const endScanRunRoute = {
  operationId: 'endScanRun',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/runs/{scanKey}/end',
  tag: 'Perch',
  summary: "End a hosted scan: its scan's completion, its log and its end in one call (agent; ours)",
  notes:
    'The carrying agent ends its run: `state` COMPLETED, or ERROR with `error.errorType` and message, and `log`, the ' +
    "run's whole log (at most 1 MiB). The log is stored first, then the run's scan is completed as reportScanCompleted " +
    'completes it (with `urlCount`; audit SCAN_COMPLETED or SCAN_ERRORED) and the run ended (its device freed) in one ' +
    'transaction, so an ended run always has its log. A run that already ended (stopped, or this call sent again) ' +
    'stores the log and is answered as it is. Needs write:scan besides write:device when the run has a scan to complete. 404 when the run is not the ' +
    "application's current run carried by that device; 400 for a profile run.",
  auth: 'bearer',
  permission: 'write:device',
  audit: 'SCAN_COMPLETED',
  params: scanKeyParams,
  query: runLogQuery,
  body: runEndBody,
  maxBodyBytes: RUN_END_BODY_BYTES,
  bodyAfterAccess: true,
  response: 'perch.GetPerchDeviceResponse',
} satisfies Route;

// ---- Scan schedules (docs/HOSTED-SCANS.md, Schedules): hosted scans started at the times of a cron expression.
export const createScheduleRoute = {
  operationId: 'createSchedule',
  method: 'POST',
  path: '/api/v1/app/{appId}/schedules',
  tag: 'Perch',
  summary: "Schedule an application's hosted scans (ours)",
  notes: note(
    () =>
      'Body: `{"env","cron","timezone","scanConfig"?,"enabled"?,"kind"?}`. `cron` has 5 fields (minute hour ' +
      'day-of-month month day-of-week: numbers, names, `*`, lists, ranges and steps; every minute at most), read in ' +
      '`timezone`, an IANA time zone name (`Europe/Paris`, `UTC`); `kind` SCAN (default) or PROFILE (a profile scan, ' +
      'which needs write:device); `scanConfig` names an organization scan configuration to scan with. At each time ' +
      'the schedule starts a run as startScan does, as its creator, with the same checks, queue and concurrency; ' +
      'while a run of the application is active the start is skipped (`lastResult` SKIPPED). A time missed while the ' +
      'service was down is not made up. 400: a bad `cron` or `timezone` (named), not a CLOUD application, an unknown ' +
      `\`scanConfig\`, or ${MAX_SCHEDULES_PER_APP} schedules already; unknown fields are refused.`,
  ),
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'APPLICATION_MODIFIED',
  body: createScheduleBody,
  response: 'hawk.ScheduleResponse',
} satisfies Route;

export const listSchedulesRoute = {
  operationId: 'listSchedules',
  method: 'GET',
  path: '/api/v1/app/{appId}/schedules',
  tag: 'Perch',
  summary: "List an application's scan schedules (ours)",
  notes:
    "The application's schedules, oldest first: `nextRunAt` (empty while paused), and what the last time did " +
    '(`lastResult` STARTED, SKIPPED or FAILED at `lastResultAt`, with `lastMessage`; `lastRunAt` and ' +
    '`lastRunScanKey` of the last run started).',
  auth: 'bearer',
  permission: 'read:scan',
  response: 'hawk.ListSchedulesResponse',
} satisfies Route;

export const updateScheduleRoute = {
  operationId: 'updateSchedule',
  method: 'PATCH',
  path: '/api/v1/app/{appId}/schedules/{scheduleId}',
  tag: 'Perch',
  summary: 'Change or pause a scan schedule (ours)',
  notes:
    'Changes the fields given (`enabled: false` pauses it, `scanConfig: null` clears it), checked as createSchedule ' +
    'checks them. Its runs are still started as its creator.',
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'APPLICATION_MODIFIED',
  body: updateScheduleBody,
  response: 'hawk.ScheduleResponse',
} satisfies Route;

export const deleteScheduleRoute = {
  operationId: 'deleteSchedule',
  method: 'DELETE',
  path: '/api/v1/app/{appId}/schedules/{scheduleId}',
  tag: 'Perch',
  summary: 'Remove a scan schedule (ours)',
  notes: 'Removes the schedule: it starts nothing from now on. A run it started goes on.',
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'APPLICATION_MODIFIED',
  response: 'hawk.Empty',
} satisfies Route;

// ---- Profile scans (docs/PROFILE-SCANS.md): launched on the hosted-scan channel, read with the Profile Scans group.
export const launchProfileScanRoute = {
  operationId: 'launchProfileScan',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/profile-scan',
  tag: 'Perch',
  summary: 'Launch Profile Scan',
  notes:
    "Queues a profile scan of a CLOUD application's verified target (docs/PROFILE-SCANS.md) for the organization's scanner agents and answers its `scanKey`: " +
    'a bounded probe (same origin, robots.txt, request and time budgets) that finds API descriptions, login markers and the shape of the target, ' +
    'and suggests a scan configuration. No body. 409: a scan or profile is already running for the application; 400: not a CLOUD application, or its target is not verified; 404: unknown application.',
  auth: 'bearer',
  permission: 'write:device',
  audit: 'SCAN_STARTED',
  response: 'user.ProvisionPerchResponse',
} satisfies Route;

export const uploadProfileScanResultRoute = {
  operationId: 'uploadProfileScanResult',
  method: 'PUT',
  path: '/api/v1/app/{appId}/perch/runs/{scanKey}/profile',
  tag: 'Perch',
  summary: "Store a profile scan's result, which ends it (agent; ours)",
  notes:
    "The carrying agent stores its profile scan's result (`scanresults.ProfileScanResult`), which ends the run as COMPLETED in the same transaction. " +
    'With it, `discoveredOpenapiSpec`: the text of the API description it found (at most 2 MiB), validated as uploadOASForApplication validates, and kept when valid; the result says what the validation found. ' +
    '409: the run already ended (stopped, or ended for a silent agent); 400: the run is a scan, not a profile.',
  auth: 'bearer',
  permission: 'write:device',
  params: scanKeyParams,
  query: profileResultQuery,
  body: profileResultBody,
  maxBodyBytes: MAX_PROFILE_RESULT_BYTES,
  bodyAfterAccess: true,
  response: 'empty',
} satisfies Route;

export const getLatestProfileScanResultRoute = {
  operationId: 'getLatestProfileScanResult',
  method: 'GET',
  path: '/api/v1/app/{appId}/profile/results',
  tag: 'Profile Scans',
  summary: 'Get latest profile scan result',
  notes:
    "The application's newest profile scan result; 404 until one exists. Fields of ours after the public ones: `suggestedScanConfig` (the suggested stackhawk.yml, " +
    'also the first recommendation), `requestsSent`, `durationMs`, `stoppedBy` (REQUEST_BUDGET or TIME_BUDGET when a budget cut the profile short), `notes` (what the probe cut, refused or could not read), ' +
    'and the discovered description checked with the hosted-description validator: `discoveredOpenapiSpecStatus` (VALID, INVALID, NOT_VALIDATED, or empty when none was found), `discoveredOpenapiSpecVersion` and `discoveredOpenapiSpecProblem`.',
  auth: 'bearer',
  permission: 'read:scan',
  response: 'scanresults.ProfileScanResult',
} satisfies Route;

export const listProfileScanResultsRoute = {
  operationId: 'listProfileScanResults',
  method: 'GET',
  path: '/api/v1/app/{appId}/profile/results/list',
  tag: 'Profile Scans',
  summary: 'List profile scan results',
  notes: "The application's profile scan results, newest first: `limit` 1 to 50, default 10.",
  auth: 'bearer',
  permission: 'read:scan',
  query: listProfileResultsQuery,
  response: 'scanresults.ListProfileScanResultsResponse',
} satisfies Route;

export const getProfileScanResultRoute = {
  operationId: 'getProfileScanResult',
  method: 'GET',
  path: '/api/v1/app/{appId}/profile/results/{scanId}',
  tag: 'Profile Scans',
  summary: 'Get specific profile scan result',
  notes: 'One profile scan result of the application, by its `scanId` (the `scanKey` launchProfileScan answered).',
  auth: 'bearer',
  permission: 'read:scan',
  response: 'scanresults.ProfileScanResult',
} satisfies Route;

export const useDiscoveredOpenApiSpecRoute = {
  operationId: 'useDiscoveredOpenApiSpec',
  method: 'POST',
  path: '/api/v1/app/{appId}/profile/results/{scanId}/use-spec',
  tag: 'Profile Scans',
  summary: "Make a profile scan's discovered API description the application's hosted one (ours)",
  notes:
    "Makes the API description a profile scan found (kept with its result when it was valid) the application's hosted description, as uploadOASForApplication does: " +
    'validated again, stored as a new version with its ORGANIZATION_CONFIGURATION_MODIFIED entry (naming the profile scan) in one transaction, replacing the current one. No body; answers like the upload. ' +
    '400: the profile found no description, or one that is not valid (the message says why); 404: unknown application or result; 403: no `write:scan_config` for the application.',
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ORGANIZATION_CONFIGURATION_MODIFIED',
  response: 'hawk.UploadOASResponse',
  mediaTypes: ['application/json'],
} satisfies Route;

export const bulkGetLatestProfileScanResultsRoute = {
  operationId: 'bulkGetLatestProfileScanResults',
  method: 'POST',
  path: '/api/v1/org/{orgId}/profile/results',
  tag: 'Profile Scans',
  summary: 'Bulk get latest profile scan results',
  notes:
    "Each named application's newest profile scan result (at most 100 ids), keyed by the id as sent: SUCCESS with `result`, NOT_FOUND (no result yet, or an application the caller cannot see), " +
    'or ERROR (an id that is not a UUID, or a read that failed) with `errorMessage`.',
  auth: 'bearer',
  permission: 'read:scan',
  body: bulkProfileResultsBody,
  response: 'com.stackhawk.falcon.controllers.BulkProfileScanResultsResponse',
  mediaTypes: ['application/json'],
} satisfies Route;

export const listScansRoute = {
  operationId: 'listScans',
  method: 'GET',
  path: '/api/v1/scan/{orgId}',
  tag: 'Scan Results',
  summary: 'List Scans',
  notes: note(
    () =>
      "The organization's scans the caller may see (team membership), newest first unless `sortField` is `id` " +
      '(scan id) or `name` (application name, then environment name). `start`/`end` bound the start time (ms; ' +
      `400 when \`start\` is after a non-zero \`end\`). \`tag\` filters are at most ${MAX_PATTERN_LENGTH} characters, matched in linear time. ` +
      '`timestamp` fields are in ms. `applicationAlerts` is always empty here. ' +
      v1Paging('empty'),
  ),
  auth: 'bearer',
  permission: 'read:scan',
  query: listScansQuery,
  response: 'application.ListScanResultsResponse',
} satisfies Route;

export const deleteScanRoute = {
  operationId: 'deleteScan',
  method: 'DELETE',
  path: '/api/v1/scan/{scanId}',
  tag: 'Scan Results',
  summary: 'Delete a Scan',
  notes:
    "Permanently deletes the scan with its findings and messages. When it was its environment's last scan, " +
    "the environment's last-scan fields then describe the previous scan (or are empty).",
  auth: 'bearer',
  permission: 'delete:scan',
  audit: 'SCAN_REMOVED',
  response: 'hawk.Empty',
} satisfies Route;

export const listScanAlertsRoute = {
  operationId: 'listScanAlerts',
  method: 'GET',
  path: '/api/v1/scan/{scanId}/alerts',
  tag: 'Scan Results',
  summary: 'List Scan Alerts',
  notes:
    'One `applicationScanResults` entry: the scan with a page of its alerts (by pluginId, or by name with ' +
    '`sortField=name`). `totalCount` counts the alerts. The last page answers an empty `nextPageToken`; a page ' +
    'past the end answers no entry (README "Paging").',
  auth: 'bearer',
  permission: 'read:scan',
  query: listScanAlertsQuery,
  response: 'application.ListApplicationAlertsResponse',
} satisfies Route;

export const listScanAlertFindingsRoute = {
  operationId: 'listScanAlertFindings',
  method: 'GET',
  path: '/api/v1/scan/{scanId}/alert/{pluginId}',
  tag: 'Scan Results',
  summary: 'List Scan Alert Findings',
  notes:
    'The alert and a page of the URIs that triggered it, in the order reported. `pageSize` is at most 100 ' +
    '(larger values are reduced). Each URI carries its `findingHash` (stable across scans of the environment: ' +
    "plugin, method, normalized path and parameter; docs/DATA-MODEL.md, Findings) and its finding's current " +
    'triage: `status` (UNKNOWN = untriaged), `matchedRuleNote`, `matchedRuleUserId`, `matchedRuleLastUpdated` (ms), ' +
    '`ruleHistories` (newest first).',
  auth: 'bearer',
  permission: 'read:scan',
  params: schema(() => z.object({ pluginId: pluginIdSchema })),
  query: listAlertFindingsQuery,
  response: 'application.AlertResponse',
} satisfies Route;

export const getScanSarifRoute = {
  operationId: 'getScanSarif',
  method: 'GET',
  path: '/api/v1/scan/{scanId}/sarif',
  tag: 'Scan Results',
  summary: "A scan's findings as a SARIF 2.1.0 log for GitHub code scanning (ours)",
  notes:
    "The scan's findings as a SARIF 2.1.0 log for GitHub code scanning (docs/SARIF-EXPORT.md): one result per " +
    'finding, `partialFingerprints` holding its `findingHash`, false positives and accepted risks as `suppressions` ' +
    'with their note, rules with the plugin, CWE, help and references, `automationDetails.id` `<applicationId>/<environment>`. ' +
    "Each result is placed on its operation's line in the application's hosted OpenAPI description (`oasPath`: its " +
    'path in the repository) when the request matches one, else on the scan configuration (`configPath`, default ' +
    "stackhawk.yml) with the URL as a logical location. A log that exceeds GitHub's limits (25,000 results, 10 MB " +
    "gzipped) or a response's (4 MiB gzipped when the client accepts gzip, else 5 MiB) is split into parts, most " +
    "severe findings first: `part` chooses one (404 past the last); `X-Sarif-Parts` and the run's properties say how " +
    'many there are. `hawk-scanner sarif` writes every part.',
  auth: 'bearer',
  permission: 'read:scan',
  query: scanSarifQuery,
  response: 'raw',
  rawSchema: { description: 'A SARIF 2.1.0 log', url: 'https://json.schemastore.org/sarif-2.1.0.json' },
  mediaTypes: ['application/sarif+json', 'application/json'],
} satisfies Route;

// ---- Findings: triage, the findings report, members (docs/DATA-MODEL.md "Findings")
export const bulkTriageFindingsRoute = {
  operationId: 'bulkTriageFindings',
  method: 'POST',
  path: '/api/v1/org/{orgId}/app/{appId}/env/{envId}/findings/triage',
  tag: 'Scan Results',
  summary: 'Bulk triage findings by hash',
  notes:
    'Triages findings of one environment by `findingHash`: `FALSE_POSITIVE`, `RISK_ACCEPTED`, or `ADD_COMMENT` ' +
    "(sets the note; keeps a triaged finding's status, shows an untriaged one as ADD_COMMENT, still untriaged). " +
    'At most 100 actions, applied in request order (committed in chunks), each atomically with its ALERT_RULE_TRIAGED entry; a hash the ' +
    'environment never saw fails alone (`success: false`, `error`), the others still apply. The rule applies to ' +
    "the finding in the environment's last scan (its figures, the environment's untriaged counts and health " +
    'change at once) and in every later scan. Body ids, when given, must match the path. A `RISK_ACCEPTED` action ' +
    "may carry `expiresAt` (ISO 8601): in the future and within the organization's maximum (getSlaPolicy), else " +
    "400 and nothing changes; without it the organization's default applies. At its expiry the finding is " +
    'untriaged again (docs/GOVERNANCE.md).',
  auth: 'bearer',
  permission: 'write:triage',
  audit: 'ALERT_RULE_TRIAGED',
  body: bulkTriageBody,
  response: 'application.BulkTriageFindingsByHashResponse',
} satisfies Route;

export const assignFindingsRoute = {
  operationId: 'assignFindings',
  method: 'POST',
  path: '/api/v1/org/{orgId}/app/{appId}/env/{envId}/findings/assignee',
  tag: 'Scan Results',
  summary: 'Assign findings of an environment to a member, or unassign them (ours)',
  notes:
    'Sets who is to act on each finding named by `findingHash` (docs/API.md, Assignees): `assigneeId`, a user id ' +
    "of a member of the organization (400 naming it otherwise), or empty to unassign. The findings report's rows " +
    'carry it (`assigneeId`, `assigneeName`), and later scans that detect the finding again keep it. At most 100 ' +
    "findings; a hash the environment never saw fails alone (`success: false`, `error`). Each finding's change is " +
    'written with its ALERT_RULE_TRIAGED entry (`action` ASSIGN or UNASSIGN). Unknown fields are refused.',
  auth: 'bearer',
  permission: 'write:triage',
  audit: 'ALERT_RULE_TRIAGED',
  body: assignFindingsBody,
  response: 'hawk.FindingAssignment',
} satisfies Route;

export const upsertAlertRuleRoute = {
  operationId: 'upsertAlertRule',
  method: 'POST',
  path: '/api/v1/app/{appId}/alerts/rules/{integrationId}',
  tag: 'Applications',
  summary: 'Upsert alert rule',
  notes:
    'The January 2026 operation, on the same rules as bulk triage: each `alertRuleWrapper.alertRule` (or deprecated ' +
    '`alertRules`) names an environment, plugin, method and `parameterizedPath` or `path` (normalized as finding ' +
    'hashes are) and sets `result` (any status, UNKNOWN clearing the triage) and `note` on every finding of the ' +
    'environment it matches (any parameter); a finding several rules match takes the last. All of it lands in one ' +
    'transaction with its audit entries, events and counts, or none of it: 404 when a rule matches no finding, 400 ' +
    'when the changes need more than 100 writes (about 30 findings in one environment: send fewer rules per ' +
    "request). A PROMOTED rule whose `integrationId` is one of the organization's tracker connections also asks for " +
    "the finding's ticket there (Jira or GitHub, made afterwards by the delivery queue, never twice; " +
    '`alertRulePromotionDetails.summary`/`description` give its title and text; docs/TRACKERS.md): the answer shows ' +
    'it under `jira`, `jiraServer` or `github`, `issueStatus: PENDING` until it is made. Any other `integrationId` ' +
    'sets the status only.',
  auth: 'bearer',
  permission: 'write:triage',
  audit: 'ALERT_RULE_TRIAGED',
  body: upsertAlertRulesBody,
  response: 'application.UpsertAlertRulesResponse',
} satisfies Route;

export const listOrganizationFindingsRoute = {
  operationId: 'listOrganizationFindings',
  method: 'GET',
  path: '/api/v1/reports/org/{orgId}/findings',
  tag: 'Reports',
  summary: 'Organization Findings',
  notes:
    "The organization's current findings: one row per URI of each visible environment's latest COMPLETED scan " +
    '(team rules as for lists), ordered by application name, environment name, plugin id and report order. ' +
    '`date` (end of that day, UTC) or `datetime` (no zone: UTC) report them as of that moment: the latest scan ' +
    "completed by then, and each finding's triage status then. `status`: NEW (untriaged or commented), " +
    'FALSE_POSITIVE, RISK_ACCEPTED, ASSIGNED (promoted). First/last seen: start of the first scan of the ' +
    'environment that reported the finding and of the scan reported (ms, ISO 8601, and `YYYY-MM-DD hh:mm:ss` UTC ' +
    'as the Excel form). `pageSize` 1 to 1000 (default 500), `pageToken` the page number; a short page is the last. ' +
    '`Accept: text/csv` answers the same rows as RFC 4180 CSV (header row; first/last seen in ISO 8601; the public ' +
    "example's columns, then findingHash, cweId, team) with the total in `X-Total-Count`. Every field holding a line " +
    'break (CR or LF) is quoted; a cell starting with =, +, -, @, tab or CR (a spreadsheet formula) gets a leading ' +
    "apostrophe and quotes, as OWASP's CSV-injection guidance recommends. Fields of ours (docs/GOVERNANCE.md), in " +
    'JSON and as the last CSV columns: `dueDate` (the SLA policy from the first sighting; empty for false ' +
    'positives, accepted risks and Info), `daysLeft`, `overdue`, and who triaged last, when, why and ' +
    '`riskAcceptedUntil`; in JSON only, `verifiedFixedAt` (ISO 8601: when a retest found the finding gone, ' +
    "docs/HOSTED-SCANS.md, Retests; empty otherwise). Issues (docs/ISSUES.md): each row has its finding's " +
    '`issueId` (the findings of every tool with the same weakness at the same place) and `detectedBy` (the tools ' +
    'whose open findings detect that issue, sorted; in CSV, space-separated, last columns); `totalIssues` counts ' +
    "the distinct issues open at the report's moment in the environments reported (`totalFindings` still counts " +
    'the rows, for paging).',
  auth: 'bearer',
  permission: 'read:report',
  query: findingsReportQuery,
  response: 'reports.CurrentFindingsResponse',
  mediaTypes: ['application/json', 'text/csv'],
} satisfies Route;

export const getAlertMessagesRoute = {
  operationId: 'getAlertMessages',
  method: 'GET',
  path: '/api/v1/scan/{scanId}/uri/{alertUriId}/messages/{messageId}',
  tag: 'Scan Results',
  summary: 'Get Scan Alert Messages',
  notes:
    "The request and response behind one finding (`messageId` = the alert URI's `msgId`). " +
    '`includeValidationCommand=true` adds a curl command reproducing the request.',
  auth: 'bearer',
  permission: 'read:scan',
  query: alertMessageQuery,
  response: 'application.AlertMsgResponse',
} satisfies Route;

export const getConfigRoute = {
  operationId: 'getConfig',
  method: 'GET',
  path: '/api/v1/app/{appId}/config/{configHash}',
  tag: 'Applications',
  summary: 'Get Application Config',
  notes:
    'The scan configuration a scan of the application reported, parsed, its credentials shown as `********` ' +
    '(`${VAR}` references as they are). 404 when no scan of the application uses this hash.',
  auth: 'bearer',
  permission: 'read:scan_config',
  params: schema(() => z.object({ configHash: configHashSchema })),
  response: 'application.ApplicationConfigResponse',
} satisfies Route;
// ---- Webhooks: subscriptions to the organization's events, delivered signed (docs/WEBHOOKS.md)
export const createWebhookRoute = {
  operationId: 'createWebhook',
  method: 'POST',
  path: '/api/v1/org/{orgId}/webhooks',
  tag: 'Webhooks',
  summary: 'Create a webhook subscription (ours); its signing secret is in this answer only',
  notes:
    'Subscribes a receiver URL to events of the organization (`scanStarted`, `scanCompleted`, `scanErrored`, ' +
    "`findingStatusChanged`, `riskAcceptanceExpired`, `findingOverdue`), optionally only for some applications (`applicationIds`) or a team's applications " +
    '(`teamId`), as signed JSON (`format: json`, the default) or as Slack or Teams messages. The answer holds the ' +
    'signing secret, shown only here. Each delivery is a POST with `X-Hawk-Event` and `X-Hawk-Signature: ' +
    't=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (docs/WEBHOOKS.md). The URL is checked when ' +
    'saved and at every delivery: 400 when it resolves to a link-local or metadata address, or to a private or ' +
    'loopback one while the organization does not allow private receivers. At most 25 webhooks per organization.',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_ADDED',
  body: createWebhookBody,
  response: 'hawk.WebhookWithSecret',
} satisfies Route;

export const listWebhooksRoute = {
  operationId: 'listWebhooks',
  method: 'GET',
  path: '/api/v1/org/{orgId}/webhooks',
  tag: 'Webhooks',
  summary: "List the organization's webhook subscriptions (ours)",
  notes: "The organization's webhook subscriptions, oldest first, without secrets.",
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.ListWebhooksResponse',
} satisfies Route;

export const getWebhookRoute = {
  operationId: 'getWebhook',
  method: 'GET',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}',
  tag: 'Webhooks',
  summary: 'Get a webhook subscription (ours)',
  notes: 'One webhook subscription, without its secret.',
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.WebhookResponse',
} satisfies Route;

export const updateWebhookRoute = {
  operationId: 'updateWebhook',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}',
  tag: 'Webhooks',
  summary: 'Change a webhook subscription or rotate its secret (ours)',
  notes:
    'Changes the fields given (`applicationIds`/`teamId`/`customHeader` null: cleared). `rotateSecret: true` makes a ' +
    'new signing secret, in this answer only; the old one stops signing at once.',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_MODIFIED',
  body: updateWebhookBody,
  response: 'hawk.WebhookWithSecret',
} satisfies Route;

export const deleteWebhookRoute = {
  operationId: 'deleteWebhook',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}',
  tag: 'Webhooks',
  summary: 'Remove a webhook subscription (ours)',
  notes: 'Removes the subscription; deliveries still queued for it are dropped.',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_REMOVED',
  response: 'hawk.Empty',
} satisfies Route;

export const listWebhookDeliveriesRoute = {
  operationId: 'listWebhookDeliveries',
  method: 'GET',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}/deliveries',
  tag: 'Webhooks',
  summary: "A webhook subscription's delivery log, newest first (ours)",
  notes:
    'The 50 newest deliveries to the subscription: the event, its status (`PENDING`, `RETRYING`, `DELIVERED`, ' +
    '`DEAD` after the last attempt or a refused address, `DROPPED` when the subscription was disabled) and each ' +
    "attempt's time, HTTP status, latency, error, the first 512 characters of the receiver's answer and the wait it " +
    'asked for with `Retry-After` (`retryAfterMs`, which the next attempt honours); `test` marks a testWebhook ' +
    'delivery and `redeliveryOf` names the delivery a redelivery sends again.',
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.ListWebhookDeliveriesResponse',
} satisfies Route;

export const testWebhookRoute = {
  operationId: 'testWebhook',
  method: 'POST',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}/test',
  tag: 'Webhooks',
  summary: 'Send a signed test event to a webhook subscription and answer its first attempt (ours)',
  notes:
    'Sends the subscription a test event (`X-Hawk-Event: ping`; for Slack and Teams a short message) through the ' +
    'same path as real events: a delivery in its log, the delivery queue, the signature, the receiver check. Works ' +
    'while the subscription is disabled. Waits for the first attempt, at most the delivery timeout plus 2 s (12 s at most), and answers the delivery: ' +
    "`DELIVERED` or `RETRYING`/`DEAD` with the attempt's HTTP status, latency, error and the start of the receiver's " +
    'answer; `PENDING` with no attempt when it is still under way (the delivery log shows how it ends). Audited as ' +
    'INTEGRATION_MODIFIED (`action: test`).',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_MODIFIED',
  response: 'hawk.WebhookDeliveryResponse',
} satisfies Route;

export const redeliverWebhookDeliveryRoute = {
  operationId: 'redeliverWebhookDelivery',
  method: 'POST',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
  tag: 'Webhooks',
  summary: 'Deliver an event to a webhook subscription again, as a new delivery (ours)',
  notes:
    'Sends a delivery again as a new delivery (a new `X-Hawk-Delivery` id, the same `X-Hawk-Event-Id` and body, so a ' +
    'receiver can tell it already handled the event), queued at once with a full set of attempts; its `redeliveryOf` ' +
    'names the original. Only a delivery that is over (`DELIVERED`, `DEAD`, `DROPPED`) among the 50 the log shows: ' +
    '409 while it is `PENDING` or `RETRYING`, or while the subscription is disabled (except a test delivery); 404 for ' +
    "an unknown id or another organization's. Audited as INTEGRATION_MODIFIED (`action: redeliver`).",
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_MODIFIED',
  response: 'hawk.WebhookDeliveryResponse',
} satisfies Route;

export const getIntegrationSettingsRoute = {
  operationId: 'getIntegrationSettings',
  method: 'GET',
  path: '/api/v1/org/{orgId}/integrations/settings',
  tag: 'Webhooks',
  summary: "Get the organization's integration settings (ours)",
  notes: "The organization's integration settings.",
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.IntegrationSettings',
} satisfies Route;

export const updateIntegrationSettingsRoute = {
  operationId: 'updateIntegrationSettings',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/integrations/settings',
  tag: 'Webhooks',
  summary: 'Allow or refuse receivers on private networks (ours; owners and administrators)',
  notes:
    '`allowPrivateNetworks`: whether receivers may be on private, loopback or shared (CGNAT) addresses. Link-local ' +
    'and metadata addresses are never allowed. Only an owner or administrator of the organization may change it (403).',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_MODIFIED',
  body: integrationSettingsBody,
  response: 'hawk.IntegrationSettings',
} satisfies Route;

// ---- Issue trackers: connections to Jira and GitHub that findings are promoted to (docs/TRACKERS.md)
export const createTrackerRoute = {
  operationId: 'createTracker',
  method: 'POST',
  path: '/api/v1/org/{orgId}/integrations/trackers',
  tag: 'Issue Trackers',
  summary: 'Connect a Jira (Cloud, Server, Data Center) or GitHub issue tracker (ours); the token is never shown again',
  notes:
    'Connects a Jira Cloud (`kind: jira`: `baseUrl` the site, `project`, `issueType`, `email` and an API token), Jira ' +
    'Server / Data Center (`jiraServer`: a personal access token) or GitHub (`github`: `repository` owner/name, ' +
    '`baseUrl` the API, api.github.com by default) issue tracker that findings are promoted to (docs/TRACKERS.md). ' +
    'The token is stored sealed and never shown again. `autoPromote: {minSeverity, environmentIds}` promotes every ' +
    'new finding at or above a severity; `closeAfterScans` (default 1) closes a ticket after that many completed ' +
    'scans without its finding. The base URL is checked as webhook URLs are: 400 for link-local or metadata ' +
    'addresses, and for private or loopback ones unless the organization allows private networks. At most 10 per ' +
    'organization.',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_ADDED',
  body: createTrackerBody,
  response: 'hawk.TrackerResponse',
} satisfies Route;

export const listTrackersRoute = {
  operationId: 'listTrackers',
  method: 'GET',
  path: '/api/v1/org/{orgId}/integrations/trackers',
  tag: 'Issue Trackers',
  summary: "List the organization's issue tracker connections (ours)",
  notes: "The organization's tracker connections, oldest first, without tokens.",
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.ListTrackersResponse',
} satisfies Route;

export const getTrackerRoute = {
  operationId: 'getTracker',
  method: 'GET',
  path: '/api/v1/org/{orgId}/integrations/trackers/{trackerId}',
  tag: 'Issue Trackers',
  summary: 'Get an issue tracker connection (ours)',
  notes: 'One tracker connection, without its token.',
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.TrackerResponse',
} satisfies Route;

export const updateTrackerRoute = {
  operationId: 'updateTracker',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/integrations/trackers/{trackerId}',
  tag: 'Issue Trackers',
  summary: 'Change an issue tracker connection or replace its token (ours)',
  notes:
    'Changes the fields given (not `kind`; `autoPromote: null` turns automatic promotion off); `token` replaces the ' +
    'stored token.',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_MODIFIED',
  body: updateTrackerBody,
  response: 'hawk.TrackerResponse',
} satisfies Route;

export const deleteTrackerRoute = {
  operationId: 'deleteTracker',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/integrations/trackers/{trackerId}',
  tag: 'Issue Trackers',
  summary: 'Remove an issue tracker connection (ours); its tickets stay',
  notes: 'Removes the connection; work still queued for it is dropped, its tickets stay.',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_REMOVED',
  response: 'hawk.Empty',
} satisfies Route;

// ---- Findings governance: the SLA policy and risk acceptances that expire (docs/GOVERNANCE.md)
export const getSlaPolicyRoute = {
  operationId: 'getSlaPolicy',
  method: 'GET',
  path: '/api/v1/org/{orgId}/sla',
  tag: 'Reports',
  summary: "Get the organization's SLA policy (ours)",
  notes:
    "The organization's SLA policy (docs/GOVERNANCE.md): days to fix a High, Medium and Low finding, counted from " +
    'its first sighting, and the default and maximum length of a risk acceptance (0: none). `configured: false` ' +
    'while the organization has not set one (30, 90 and 180 days apply).',
  auth: 'bearer',
  permission: 'read:policy',
  response: 'hawk.SlaPolicy',
} satisfies Route;

export const updateSlaPolicyRoute = {
  operationId: 'updateSlaPolicy',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/sla',
  tag: 'Reports',
  summary: "Set the organization's SLA policy: days per severity, risk acceptance default and maximum (ours)",
  notes:
    'Sets the whole policy: `{"days": {"High": n, "Medium": n, "Low": n}, "riskAcceptance": {"defaultDays": n, ' +
    '"maxDays": n}}` (1 to 3650 days; `riskAcceptance` and its fields optional, null: none). The findings report ' +
    "shows each finding's due date from it; a `RISK_ACCEPTED` triage without `expiresAt` then expires after " +
    '`defaultDays` (or `maxDays`), and one beyond `maxDays` is refused.',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'ORGANIZATION_POLICY_MODIFIED',
  body: slaPolicyBody,
  response: 'hawk.SlaPolicy',
} satisfies Route;

export const getScanSlaRoute = {
  operationId: 'getScanSla',
  method: 'GET',
  path: '/api/v1/scan/{scanId}/sla',
  tag: 'Scan Results',
  summary: "A scan's findings past their due date now (ours; hawk-scanner import --fail-on overdue)",
  notes:
    "The scan's findings that are past their due date now (docs/GOVERNANCE.md: the days of the SLA policy and overrides from " +
    "each finding's first sighting, stopped while a false positive or accepted risk): their count, by severity, and " +
    'the 100 most overdue. `hawk-scanner import --fail-on overdue` asks it after an import.',
  auth: 'bearer',
  permission: 'read:scan',
  response: 'hawk.ScanSla',
} satisfies Route;

export const getScanDiffRoute = {
  operationId: 'getScanDiff',
  method: 'GET',
  path: '/api/v1/scan/{scanId}/diff',
  tag: 'Scan Results',
  summary: 'What changed between two scans of one environment (ours)',
  notes:
    "The scan's findings against another scan's (docs/DATA-MODEL.md, Scan diffs), by `findingHash`: `new` (reported by " +
    'this scan only, never before the other), `regressed` (reported before the other scan, absent from it, and back), ' +
    '`fixed` (reported by the other scan only) and `unchanged`, each `{findingHash, issueId, pluginId, name, severity, ' +
    'method, uri, param}` (`issueId`: the issue the finding is a detection of, docs/ISSUES.md), most severe first. `against` names the other scan; without it, the previous completed scan ' +
    "of the same tool stream (`againstScanId` '' when there is none: every finding is new). Pages of at most 20,000 " +
    'entries (`pageSize`, default 20,000) and 4 MiB of them run through new, regressed, fixed, then unchanged; every ' +
    "page gives each set's size in `totals` and `nextPageToken` ('' after the last), the next page's `pageToken`. " +
    'A scan of another ' +
    "environment answers 400, one the caller cannot see (another organization's included) 404.",
  auth: 'bearer',
  permission: 'read:scan',
  query: scanDiffQuery,
  response: 'hawk.ScanDiff',
} satisfies Route;

export const getScanCoverageRoute = {
  operationId: 'getScanCoverage',
  method: 'GET',
  path: '/api/v1/scan/{scanId}/coverage',
  tag: 'Scan Results',
  summary: 'What a hosted scan covered (ours)',
  notes:
    "The coverage record of a hosted scan (docs/HOSTED-SCANS.md, Coverage), sent by the agent with the run's end: " +
    '`pages` (the distinct URLs crawled) and `forms`; `requests`, those the engine sent through the agent, and ' +
    '`authenticatedRequests`, those sent with a session the agent believed valid; `relogins`; `modules`, each engine ' +
    "module's requests, findings and whether its attack time cut it; `durationSeconds` and `deadlineSeconds`; " +
    '`verdict`: COMPLETE, PARTIAL (a time or request budget reached), AUTH_DEGRADED (part of the attack went out ' +
    'logged out) or LOW_COVERAGE (fewer pages than the configured minimum), with `reasons`. 404 for a scan without ' +
    'one (imported or CLI scans, or a run that ended before its scan completed).',
  auth: 'bearer',
  permission: 'read:scan',
  response: 'hawk.ScanCoverage',
} satisfies Route;

// ---- Retests (docs/HOSTED-SCANS.md, Retests): one finding attacked again by a hosted run.
export const retestFindingRoute = {
  operationId: 'retestFinding',
  method: 'POST',
  path: '/api/v1/app/{appId}/findings/{findingHash}/retest',
  tag: 'Perch',
  summary: 'Retest one finding (ours)',
  notes:
    "Queues a retest of a finding of the CLOUD application's environment `env` (by name) and answers its `retestId`: " +
    "a hosted run limited to the finding's method, URL and parameter and the engine check that found it, logged in " +
    'with the configuration of the scan that last reported it, on the same queue, concurrency slots and agents as ' +
    'hosted scans (it takes one slot). Read its outcome with getRetest. 404: unknown application, environment or finding; 409: a scan or retest is already ' +
    "running for the application; 400: not a CLOUD application, its target is not verified, or the finding's URL is " +
    'not on the target.',
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'SCAN_STARTED',
  params: retestParams,
  query: retestQuery,
  response: 'hawk.RetestStarted',
} satisfies Route;

export const getRetestRoute = {
  operationId: 'getRetest',
  method: 'GET',
  path: '/api/v1/app/{appId}/retests/{retestId}',
  tag: 'Perch',
  summary: "A retest's status and outcome (ours)",
  notes:
    '`status`: QUEUED (waiting for an agent or a slot), RUNNING, STILL_PRESENT (the check found the finding again: ' +
    'it stays open, `evidence` is what it saw), FIXED (it did not: the finding is marked fixed and verified, ' +
    '`verifiedFixedAt` in the findings report) or ERROR (`evidence` says why: the login failed, the run was stopped ' +
    'or its agent lost); `findingHash`; `startedAt` and `endedAt` (ISO 8601, empty until then).',
  auth: 'bearer',
  permission: 'read:scan',
  response: 'hawk.Retest',
} satisfies Route;

export const getApplicationSlaRoute = {
  operationId: 'getApplicationSla',
  method: 'GET',
  path: '/api/v1/app/{appId}/sla',
  tag: 'Reports',
  summary: 'The SLA days of an application and of its environments: their overrides and the days that apply (ours)',
  notes:
    'The days to fix a finding in the application and in each of its environments (docs/GOVERNANCE.md, Overrides): ' +
    'the overrides set (`override`, 0 where a severity is inherited) and the days that apply (`days`): the ' +
    "environment's, else the application's, else the organization's, severity by severity.",
  auth: 'bearer',
  permission: 'read:policy',
  response: 'hawk.ApplicationSla',
} satisfies Route;

export const updateApplicationSlaRoute = {
  operationId: 'updateApplicationSla',
  method: 'PUT',
  path: '/api/v1/app/{appId}/sla',
  tag: 'Reports',
  summary: "Override the organization's SLA days for an application (ours)",
  notes:
    '`{"days": {"High": n}}`: the severities named (1 to 3650 days) override the organization\'s days for this ' +
    "application's findings; the others are inherited. Replaces the application's previous override.",
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  body: slaOverrideBody,
  response: 'hawk.ApplicationSla',
} satisfies Route;

export const deleteApplicationSlaRoute = {
  operationId: 'deleteApplicationSla',
  method: 'DELETE',
  path: '/api/v1/app/{appId}/sla',
  tag: 'Reports',
  summary: "Remove an application's SLA override (ours)",
  notes: "The application's findings follow the organization's days again (404 when it has no override).",
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  response: 'empty',
} satisfies Route;

export const updateEnvironmentSlaRoute = {
  operationId: 'updateEnvironmentSla',
  method: 'PUT',
  path: '/api/v1/app/{appId}/env/{envId}/sla',
  tag: 'Reports',
  summary: 'Override the SLA days for an environment (ours)',
  notes:
    '`{"days": {"Low": n}}`: the severities named override the application\'s (or else the organization\'s) days for ' +
    "this environment's findings. Replaces the environment's previous override; deleting the environment deletes it.",
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  body: slaOverrideBody,
  response: 'hawk.ApplicationSla',
} satisfies Route;

export const deleteEnvironmentSlaRoute = {
  operationId: 'deleteEnvironmentSla',
  method: 'DELETE',
  path: '/api/v1/app/{appId}/env/{envId}/sla',
  tag: 'Reports',
  summary: "Remove an environment's SLA override (ours)",
  notes: "The environment's findings follow the application's days again (404 when it has no override).",
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  response: 'empty',
} satisfies Route;

export const getOrganizationTrendsRoute = {
  operationId: 'getOrganizationTrends',
  method: 'GET',
  path: '/api/v1/org/{orgId}/trends',
  tag: 'Reports',
  summary: "The organization's findings trends per day: open, new, fixed, reopened, time to fix, SLA, coverage (ours)",
  notes:
    "Daily figures of the organization's findings over the last `days` days (UTC, 1 to 365, default 30; " +
    'docs/GOVERNANCE.md, Trends): open findings per severity at the end of each day (current and not a false ' +
    "positive or accepted risk), new, fixed and reopened findings that day, the fixes' summed time since first " +
    'sighting and how many met their due date, and the environments scanned within 7 and 30 days. Kept as the ' +
    "writes happen: a request reads at most `days` + 30 small items, whatever the organization's size.",
  auth: 'bearer',
  permission: 'read:scan',
  query: trendsQuery,
  response: 'hawk.Trends',
} satisfies Route;

export const getApplicationTrendsRoute = {
  operationId: 'getApplicationTrends',
  method: 'GET',
  path: '/api/v1/org/{orgId}/app/{appId}/trends',
  tag: 'Reports',
  summary: "An application's findings trends per day (ours)",
  notes:
    "The same daily figures for one application's environments (docs/GOVERNANCE.md, Trends). 404 for an " +
    'application of another organization.',
  auth: 'bearer',
  permission: 'read:scan',
  query: trendsQuery,
  response: 'hawk.Trends',
} satisfies Route;

export const getEnvironmentTrendsRoute = {
  operationId: 'getEnvironmentTrends',
  method: 'GET',
  path: '/api/v1/org/{orgId}/app/{appId}/env/{envId}/trends',
  tag: 'Reports',
  summary: "An environment's findings trends per day (ours)",
  notes: 'The same daily figures for one environment (docs/GOVERNANCE.md, Trends).',
  auth: 'bearer',
  permission: 'read:scan',
  query: trendsQuery,
  response: 'hawk.Trends',
} satisfies Route;

export const getOrganizationOverviewRoute = {
  operationId: 'getOrganizationOverview',
  method: 'GET',
  path: '/api/v1/org/{orgId}/overview',
  tag: 'Reports',
  summary: "The organization's riskiest applications, most overdue findings and coverage gaps (ours)",
  notes:
    "What the dashboard's overview shows beside the trends (docs/GOVERNANCE.md, The overview): the applications with " +
    'the most untriaged findings, the most overdue findings of the environments with the most untriaged findings, ' +
    'and the environments not scanned within 7 or 30 days. Team rules apply. The riskiest applications count open ' +
    'issues (one per weakness) and are read from their ranked entries, the coverage gaps from counters, the overdue ' +
    "findings from 10 environments' scans: the cost is the same whatever the organization's size.",
  auth: 'bearer',
  permission: 'read:report',
  response: 'hawk.OrganizationOverview',
} satisfies Route;

export const listApplicationRiskRoute = {
  operationId: 'listApplicationRisk',
  method: 'GET',
  path: '/api/v1/org/{orgId}/apps/risk',
  tag: 'Reports',
  summary: "The organization's applications by risk: open issues by severity, last scan, SLA breaches (ours)",
  notes: note(
    () =>
      "The dashboard's applications list (docs/GOVERNANCE.md, Applications by risk): each application the caller " +
      "can see (team rules apply) with its open issues per severity as the overview's riskiest applications count " +
      "them, its last scans' untriaged findings, its newest last scan and its status, and its SLA breaches (the " +
      "overdue issues of its environments' current scans). Ordered by risk as the overview ranks (open High, Medium, " +
      'then Low issues, then untriaged findings, then the application id), by name or by last scan; at most ' +
      `${MAX_RISK_RANKED} applications are ranked (400 beyond: the order reads them all).`,
  ),
  auth: 'bearer',
  permission: 'read:application',
  query: applicationRiskQuery,
  response: 'hawk.ApplicationRiskList',
} satisfies Route;

export const routes: Route[] = [
  loginRoute,
  refreshTokenRoute,
  getUserRoute,
  createUserKeyRoute,
  listUserKeysRoute,
  revokeUserKeyRoute,
  listOrganizationKeysRoute,
  revokeMemberKeyRoute,
  getSsoProviderRoute,
  updateSsoProviderRoute,
  deleteSsoProviderRoute,
  startSsoSignInRoute,
  completeSsoSignInRoute,
  confirmSsoLinkRoute,
  signOutRoute,
  listMemberRolesRoute,
  updateMemberRoute,
  removeMemberRoute,
  createInvitationRoute,
  listInvitationsRoute,
  revokeInvitationRoute,
  acceptInvitationRoute,
  acceptInvitationAsUserRoute,
  uploadOASForApplicationRoute,
  getHostedOASForOrgRoute,
  listOASAssetsForOrgRoute,
  getApplicationMappedOASRoute,
  toggleApplicationOASMappingRoute,
  getGlobalConfigurationRoute,
  validateScanConfigurationRoute,
  setScanConfigurationForOrgRoute,
  renameScanConfigurationForOrgRoute,
  listScanConfigurationsForOrgRoute,
  getScanConfigurationForOrgRoute,
  deleteScanConfigurationForOrgRoute,
  allStackHawkScanPoliciesRoute,
  getStackHawkScanPolicyRoute,
  setScanPolicyForOrgRoute,
  listScanPoliciesForOrgRoute,
  getScanPolicyForOrgRoute,
  deleteScanPolicyForOrgRoute,
  getApplicationScanPolicyRoute,
  assignAppPluginsRoute,
  toggleAppPluginRoute,
  getAppTechFlagsRoute,
  updateAppTechFlagsRoute,
  registerRepositoryRoute,
  listRepositoriesRoute,
  createAppsForReposRoute,
  replaceRepoAppMappingsRoute,
  listRepoSensitiveDataRoute,
  createApplicationRoute,
  getApplicationRoute,
  updateApplicationRoute,
  deleteApplicationRoute,
  createEnvironmentRoute,
  updateEnvironmentRoute,
  getEnvironmentDefaultConfigRoute,
  createEnvironmentDefaultConfigRoute,
  deleteEnvironmentRoute,
  listEnvsV2Route,
  listAppsV2Route,
  listApplicationsRoute,
  listEnvironmentsRoute,
  listMembersRoute,
  listAuditActivityRoute,
  getTeamRoute,
  updateTeamsRoute,
  deleteTeamRoute,
  updateApplicationTeamRoute,
  createTeamRoute,
  listTeamsForOrgAndUserRoute,
  listTeamsForOrgRoute,
  reportScanStartedRoute,
  reportScanAlertsRoute,
  reportScanCompletedRoute,
  importScanReportRoute,
  listScansRoute,
  deleteScanRoute,
  listScanAlertsRoute,
  listScanAlertFindingsRoute,
  getScanSarifRoute,
  bulkTriageFindingsRoute,
  assignFindingsRoute,
  upsertAlertRuleRoute,
  listOrganizationFindingsRoute,
  getAlertMessagesRoute,
  getConfigRoute,
  createWebhookRoute,
  listWebhooksRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  listWebhookDeliveriesRoute,
  testWebhookRoute,
  redeliverWebhookDeliveryRoute,
  getIntegrationSettingsRoute,
  updateIntegrationSettingsRoute,
  createTrackerRoute,
  listTrackersRoute,
  getTrackerRoute,
  updateTrackerRoute,
  deleteTrackerRoute,
  getSlaPolicyRoute,
  updateSlaPolicyRoute,
  getScanSlaRoute,
  getScanDiffRoute,
  getScanCoverageRoute,
  retestFindingRoute,
  getRetestRoute,
  getApplicationSlaRoute,
  updateApplicationSlaRoute,
  deleteApplicationSlaRoute,
  updateEnvironmentSlaRoute,
  deleteEnvironmentSlaRoute,
  getOrganizationTrendsRoute,
  getApplicationTrendsRoute,
  getEnvironmentTrendsRoute,
  getOrganizationOverviewRoute,
  listApplicationRiskRoute,
  listApplicationScanSecretsRoute,
  setApplicationScanSecretRoute,
  deleteApplicationScanSecretRoute,
  listOrganizationScanSecretsRoute,
  setOrganizationScanSecretRoute,
  deleteOrganizationScanSecretRoute,
  startScanRoute,
  stopScanRoute,
  getScanStatusRoute,
  searchDevicesRoute,
  verifyScanTargetRoute,
  getScanRunLogRoute,
  listDevicesRoute,
  registerDeviceRoute,
  getHostedScanSettingsRoute,
  updateHostedScanSettingsRoute,
  listAgentPoolsRoute,
  replaceAgentPoolsRoute,
  pollDeviceCommandRoute,
  acknowledgeDeviceCommandRoute,
  updateScanRunRoute,
  reportScanRunStartedRoute,
  uploadScanRunLogRoute,
  endScanRunRoute,
  createScheduleRoute,
  listSchedulesRoute,
  updateScheduleRoute,
  deleteScheduleRoute,
  launchProfileScanRoute,
  uploadProfileScanResultRoute,
  getLatestProfileScanResultRoute,
  listProfileScanResultsRoute,
  getProfileScanResultRoute,
  bulkGetLatestProfileScanResultsRoute,
  useDiscoveredOpenApiSpecRoute,
];
