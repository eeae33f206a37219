import * as z from 'zod/mini'; // namespace import: lets esbuild drop zod's unused parts (its locales alone are 350 KB)
import type { Permission } from './identity/permissions.ts';
import { FINDINGS_REPORT_BODY_BYTES, IMPORT_BODY_BYTES, SCAN_START_BODY_BYTES } from './limits.ts';
import type { ActivityType } from './audit/activity-types.ts';
import { caseInsensitiveEnum, pageSizeParam, pageTokenParam, uuidListParam, uuidSchema, v2PageParam } from './lists.ts';
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
  createEnvironmentDefaultConfigBody,
} from './applications/inputs.ts';
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
  scanStartedBody,
} from './scans/inputs.ts';
import {
  DESCRIPTION_CONTENT_TYPES,
  MAX_DESCRIPTION_BYTES,
  configNameSchema,
  mappingRequestSchema,
  redirectParam,
} from './hosted-assets/inputs.ts';
import {
  listScanConfigurationsQuery,
  renameScanConfigurationBody,
  upsertScanConfigurationBody,
  validateScanConfigurationBody,
} from './scan-configurations/inputs.ts';
import { bulkTriageBody, findingsReportQuery, upsertAlertRulesBody } from './findings/inputs.ts';
import {
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
  MAX_RUN_LOG_BYTES,
  perchCommandBody,
  pollBody,
  readRunLogQuery,
  registerDeviceBody,
  runLogQuery,
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
import { ssoCallbackBody, ssoProviderBody, ssoStartBody } from './sso/inputs.ts';
import { slaOverrideBody, slaPolicyBody } from './governance/inputs.ts';
import { trendsQuery } from './trends/inputs.ts';
import { createTrackerBody, updateTrackerBody } from './trackers/inputs.ts';

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

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
  /**
   * 'apiKey': X-ApiKey header (login only); 'bearer': an access token; 'none': no credentials: the sign-in steps that
   * come before any (single sign-on's start and callback) or a body carrying a secret of its own (acceptInvitation's
   * token). Operations without a token are rate limited per source address.
   */
  auth: 'apiKey' | 'bearer' | 'none';
  /** Checked against the caller's membership of the organization the operation touches. */
  permission?: Permission;
  /** The user-activity entry the operation writes, in the same transaction as its change. */
  audit?: ActivityType;
  /** Path parameters other than UUID `...Id` ones (those are validated as UUIDs automatically). */
  params?: z.ZodMiniObject;
  query?: z.ZodMiniObject;
  /** JSON request body; absent: the operation takes none. */
  body?: z.ZodMiniType;
  /** Largest JSON body accepted, in bytes (checked before parsing); default MAX_JSON_BODY_BYTES (shared/limits.ts). */
  maxBodyBytes?: number;
  /**
   * The body is parsed only when the handler calls `readBody()`, after its access check (the target's existence,
   * ownership and team): required for every body larger than MAX_JSON_BODY_BYTES, so a caller without access never
   * gets a large body parsed. Other bodies are parsed after authentication and organization authorization.
   */
  bodyAfterAccess?: true;
  /** Raw (non-JSON) request body content types, e.g. the OpenAPI upload. */
  rawBody?: { contentTypes: string[]; maxBytes: number };
  /**
   * Protobuf message name of the 200 response ('package.Message'), 'empty' for an empty 200, or 'raw' for a document
   * of another format that the handler answers itself (a RawResponse), described by `rawSchema`.
   */
  response: string;
  /** The JSON Schema document a 'raw' response follows (the OpenAPI description links it). */
  rawSchema?: { description: string; url: string };
  /** The JSON answer is this one field of the response message (the public API answers a bare map there). */
  responseField?: string;
  /** Response media types offered; defaults to JSON and protobuf. */
  mediaTypes?: string[];
}

// Each operation is a named export, so that a function's bundle holds its own route and no other (with the
// schemas only it uses): its handler imports it (functions/*.ts). `routes` lists them all, in this order.
export const loginRoute: Route = {
  operationId: 'login',
  method: 'GET',
  path: '/api/v1/auth/login',
  handler: 'login',
  tag: 'Api Authentication',
  summary: 'Login with API Key',
  auth: 'apiKey',
  response: 'user.JWT',
};

export const refreshTokenRoute: Route = {
  operationId: 'refreshToken',
  method: 'GET',
  path: '/api/v1/auth/refresh-token',
  handler: 'refresh-token',
  tag: 'Api Authentication',
  summary: 'Refresh Access Token',
  auth: 'bearer',
  response: 'user.JWT',
};

export const getUserRoute: Route = {
  operationId: 'getUser',
  method: 'GET',
  path: '/api/v1/user',
  handler: 'get-user',
  tag: 'User',
  summary: 'Get Current User',
  auth: 'bearer',
  response: 'user.UserResponse',
};

// ---- API keys in settings (docs/IDENTITY.md "API keys"): the caller's own keys, and an organization's members' keys
export const createUserKeyRoute: Route = {
  operationId: 'createUserKey',
  method: 'POST',
  path: '/api/v1/user/keys',
  handler: 'create-user-key',
  tag: 'User',
  summary: 'Create API Key',
  auth: 'bearer',
  audit: 'API_KEY_ADDED',
  body: createUserKeyBody,
  response: 'hawk.CreatedApiKey',
};

export const listUserKeysRoute: Route = {
  operationId: 'listUserKeys',
  method: 'GET',
  path: '/api/v1/user/keys',
  handler: 'list-user-keys',
  tag: 'User',
  summary: 'List API Keys',
  auth: 'bearer',
  response: 'hawk.ApiKeyList',
};

export const revokeUserKeyRoute: Route = {
  operationId: 'revokeUserKey',
  method: 'DELETE',
  path: '/api/v1/user/keys/{keyId}',
  handler: 'revoke-user-key',
  tag: 'User',
  summary: 'Revoke API Key',
  auth: 'bearer',
  audit: 'API_KEY_REMOVED',
  params: schema(() => z.object({ keyId: keyIdSchema })),
  response: 'hawk.Empty',
};

export const listOrganizationKeysRoute: Route = {
  operationId: 'listOrganizationKeys',
  method: 'GET',
  path: '/api/v1/org/{orgId}/keys',
  handler: 'list-organization-keys',
  tag: 'Organizations',
  summary: "List Members' API Keys",
  auth: 'bearer',
  permission: 'write:member',
  query: listOrganizationKeysQuery,
  response: 'hawk.ApiKeyList',
};

export const revokeMemberKeyRoute: Route = {
  operationId: 'revokeMemberKey',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/members/{userId}/keys/{keyId}',
  handler: 'revoke-member-key',
  tag: 'Organizations',
  summary: "Revoke a Member's API Key",
  auth: 'bearer',
  permission: 'write:member',
  audit: 'API_KEY_REMOVED',
  params: schema(() => z.object({ keyId: keyIdSchema })),
  response: 'hawk.Empty',
};

// ---- Single sign-on with the organization's OpenID Connect provider (docs/IDENTITY.md "Single sign-on")
export const getSsoProviderRoute: Route = {
  operationId: 'getSsoProvider',
  method: 'GET',
  path: '/api/v1/org/{orgId}/sso',
  handler: 'get-sso-provider',
  tag: 'Organizations',
  summary: "Get the organization's single sign-on provider (ours)",
  auth: 'bearer',
  permission: 'write:member',
  response: 'hawk.SsoProvider',
};

export const updateSsoProviderRoute: Route = {
  operationId: 'updateSsoProvider',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/sso',
  handler: 'update-sso-provider',
  tag: 'Organizations',
  summary: "Set the organization's single sign-on provider (ours)",
  auth: 'bearer',
  permission: 'write:member',
  audit: 'ORG_SETTINGS_MODIFIED',
  body: ssoProviderBody,
  response: 'hawk.SsoProvider',
};

export const deleteSsoProviderRoute: Route = {
  operationId: 'deleteSsoProvider',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/sso',
  handler: 'delete-sso-provider',
  tag: 'Organizations',
  summary: "Remove the organization's single sign-on provider (ours)",
  auth: 'bearer',
  permission: 'write:member',
  audit: 'ORG_SETTINGS_MODIFIED',
  response: 'hawk.Empty',
};

export const startSsoSignInRoute: Route = {
  operationId: 'startSsoSignIn',
  method: 'POST',
  path: '/api/v1/auth/sso/start',
  handler: 'start-sso-sign-in',
  tag: 'Api Authentication',
  summary: "Start signing in with the organization's identity provider (ours)",
  auth: 'none',
  body: ssoStartBody,
  response: 'hawk.SsoSignInStart',
};

export const completeSsoSignInRoute: Route = {
  operationId: 'completeSsoSignIn',
  method: 'POST',
  path: '/api/v1/auth/sso/callback',
  handler: 'complete-sso-sign-in',
  tag: 'Api Authentication',
  summary: "Finish signing in with the identity provider's answer (ours)",
  auth: 'none',
  audit: 'USER_JOINED_ORG',
  body: ssoCallbackBody,
  response: 'user.JWT',
};

export const signOutRoute: Route = {
  operationId: 'signOut',
  method: 'POST',
  path: '/api/v1/auth/sign-out',
  handler: 'sign-out',
  tag: 'Api Authentication',
  summary: 'Sign out: end this session (ours)',
  auth: 'bearer',
  response: 'hawk.Empty',
};

// ---- Members and roles (docs/IDENTITY.md "Members and roles"): roles, removal and invitations
export const listMemberRolesRoute: Route = {
  operationId: 'listMemberRoles',
  method: 'GET',
  path: '/api/v1/org/{orgId}/roles',
  handler: 'list-member-roles',
  tag: 'Organizations',
  summary: "List Roles and Members' Roles",
  auth: 'bearer',
  permission: 'read:member',
  query: listMemberRolesQuery,
  response: 'hawk.MemberRoleList',
};

export const updateMemberRoute: Route = {
  operationId: 'updateMember',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/members/{userId}',
  handler: 'update-member',
  tag: 'Organizations',
  summary: "Change a Member's Role",
  auth: 'bearer',
  permission: 'write:member',
  audit: 'USER_MODIFIED',
  body: updateMemberBody,
  response: 'hawk.MemberResponse',
};

export const removeMemberRoute: Route = {
  operationId: 'removeMember',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/members/{userId}',
  handler: 'remove-member',
  tag: 'Organizations',
  summary: 'Remove a Member',
  auth: 'bearer',
  permission: 'write:member',
  audit: 'REMOVE_USER',
  response: 'hawk.Empty',
};

export const createInvitationRoute: Route = {
  operationId: 'createInvitation',
  method: 'POST',
  path: '/api/v1/org/{orgId}/invitations',
  handler: 'create-invitation',
  tag: 'Organizations',
  summary: 'Invite a Member',
  auth: 'bearer',
  permission: 'write:member',
  audit: 'INVITE_USER',
  body: createInvitationBody,
  response: 'hawk.CreatedInvitation',
};

export const listInvitationsRoute: Route = {
  operationId: 'listInvitations',
  method: 'GET',
  path: '/api/v1/org/{orgId}/invitations',
  handler: 'list-invitations',
  tag: 'Organizations',
  summary: 'List Pending Invitations',
  auth: 'bearer',
  permission: 'write:member',
  response: 'hawk.InvitationList',
};

export const revokeInvitationRoute: Route = {
  operationId: 'revokeInvitation',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/invitations/{invitationId}',
  handler: 'revoke-invitation',
  tag: 'Organizations',
  summary: 'Revoke an Invitation',
  auth: 'bearer',
  permission: 'write:member',
  audit: 'USER_INVITE_REVOKED',
  response: 'hawk.Empty',
};

export const acceptInvitationRoute: Route = {
  operationId: 'acceptInvitation',
  method: 'POST',
  path: '/api/v1/invitations/accept',
  handler: 'accept-invitation',
  tag: 'Organizations',
  summary: 'Accept an Invitation',
  auth: 'none',
  audit: 'USER_JOINED_ORG',
  body: acceptInvitationBody,
  response: 'hawk.AcceptedInvitation',
};

// ---- Hosted OAS and global configuration (docs/HOSTED-ASSETS.md)
export const uploadOASForApplicationRoute: Route = {
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
  mediaTypes: ['application/json'],
};

export const getHostedOASForOrgRoute: Route = {
  operationId: 'getHostedOASForOrg',
  method: 'GET',
  path: '/api/v1/oas/{orgId}/{oasId}',
  handler: 'get-hosted-oas-for-org',
  tag: 'Hosted OAS',
  summary: 'Get hosted OpenAPI Specification',
  auth: 'bearer',
  permission: 'read:scan_config',
  query: schema(() => z.object({ redirect: redirectParam(false) })),
  response: 'configuration.GetHostedAssetResponse',
  mediaTypes: ['application/json'],
};

export const listOASAssetsForOrgRoute: Route = {
  operationId: 'listOASAssetsForOrg',
  method: 'GET',
  path: '/api/v1/oas/{orgId}/list',
  handler: 'list-oas-assets-for-org',
  tag: 'Hosted OAS',
  summary: 'List hosted OpenAPI Specifications',
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
};

export const getApplicationMappedOASRoute: Route = {
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
};

export const toggleApplicationOASMappingRoute: Route = {
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
};

export const getGlobalConfigurationRoute: Route = {
  operationId: 'getGlobalConfiguration',
  method: 'GET',
  path: '/api/v1/global-configuration/{configName}',
  handler: 'get-global-configuration',
  tag: 'Global Configuration',
  summary: 'Get Global Configuration',
  auth: 'bearer',
  permission: 'read:scan_config',
  params: schema(() => z.object({ configName: configNameSchema })),
  query: schema(() => z.object({ redirect: redirectParam(true) })),
  response: 'configuration.GetHostedAssetResponse',
  mediaTypes: ['application/json'],
};

// ---- Organization scan configurations (docs/DATA-MODEL.md "Organization scan configurations and environment default
// configurations")
export const validateScanConfigurationRoute: Route = {
  operationId: 'validateScanConfiguration',
  method: 'POST',
  path: '/api/v1/configuration/{orgId}/validate',
  handler: 'validate-scan-configuration',
  tag: 'Scan Configuration',
  summary: 'Validate Scan Configuration',
  auth: 'bearer',
  permission: 'read:scan_config',
  body: validateScanConfigurationBody,
  response: 'configuration.ValidatedAssetResponse',
};

export const setScanConfigurationForOrgRoute: Route = {
  operationId: 'setScanConfigurationForOrg',
  method: 'POST',
  path: '/api/v1/configuration/{orgId}/update',
  handler: 'set-scan-configuration-for-org',
  tag: 'Scan Configuration',
  summary: 'Update App or Organization Scan Configuration',
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ORGANIZATION_CONFIGURATION_MODIFIED',
  body: upsertScanConfigurationBody,
  response: 'empty',
};

export const renameScanConfigurationForOrgRoute: Route = {
  operationId: 'renameScanConfigurationForOrg',
  method: 'POST',
  path: '/api/v1/configuration/{orgId}/rename',
  handler: 'rename-scan-configuration-for-org',
  tag: 'Scan Configuration',
  summary: 'Rename an Organization Scan Configuration',
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ORGANIZATION_CONFIGURATION_MODIFIED',
  body: renameScanConfigurationBody,
  response: 'empty',
};

export const listScanConfigurationsForOrgRoute: Route = {
  operationId: 'listScanConfigurationsForOrg',
  method: 'GET',
  path: '/api/v1/configuration/{orgId}/list',
  handler: 'list-scan-configurations-for-org',
  tag: 'Scan Configuration',
  summary: 'List Organization Scan Configuration',
  auth: 'bearer',
  permission: 'read:scan_config',
  query: listScanConfigurationsQuery,
  response: 'configuration.ListOrganizationScanConfigurationsResponse',
};

export const getScanConfigurationForOrgRoute: Route = {
  operationId: 'getScanConfigurationForOrg',
  method: 'GET',
  path: '/api/v1/configuration/{orgId}/{configName}',
  handler: 'get-scan-configuration-for-org',
  tag: 'Scan Configuration',
  summary: 'Get Organization Scan Configuration',
  auth: 'bearer',
  permission: 'read:scan_config',
  params: schema(() => z.object({ configName: configNameSchema })),
  query: schema(() => z.object({ redirect: redirectParam(false) })),
  response: 'configuration.GetHostedAssetResponse',
  mediaTypes: ['application/json'],
};

export const deleteScanConfigurationForOrgRoute: Route = {
  operationId: 'deleteScanConfigurationForOrg',
  method: 'DELETE',
  path: '/api/v1/configuration/{orgId}/{configName}',
  handler: 'delete-scan-configuration-for-org',
  tag: 'Scan Configuration',
  summary: 'Delete Organization Scan Configuration',
  auth: 'bearer',
  permission: 'delete:scan_config',
  audit: 'ORGANIZATION_CONFIGURATION_REMOVED',
  params: schema(() => z.object({ configName: configNameSchema })),
  response: 'empty',
};

// ---- Scan policies (docs/SCAN-POLICIES.md)
export const allStackHawkScanPoliciesRoute: Route = {
  operationId: 'allStackHawkScanPolicies',
  method: 'GET',
  path: '/api/v1/policy/all',
  handler: 'all-stackhawk-scan-policies',
  tag: 'Scan Policies',
  summary: 'List StackHawk Scan Policies',
  auth: 'bearer',
  permission: 'read:policy',
  response: 'scanpolicy.ListScanPoliciesResponse',
};

export const getStackHawkScanPolicyRoute: Route = {
  operationId: 'getStackHawkScanPolicy',
  method: 'GET',
  path: '/api/v1/policy',
  handler: 'get-stackhawk-scan-policy',
  tag: 'Scan Policies',
  summary: 'Get StackHawk Scan Policy',
  auth: 'bearer',
  permission: 'read:policy',
  query: policyNameQuery,
  response: 'application.GetApplicationScanPolicyResponse',
};

export const setScanPolicyForOrgRoute: Route = {
  operationId: 'setScanPolicyForOrg',
  method: 'POST',
  path: '/api/v1/policy/{orgId}/update',
  handler: 'set-scan-policy-for-org',
  tag: 'Scan Policies',
  summary: 'Update Organization Scan Policy',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'ORGANIZATION_POLICY_MODIFIED',
  body: upsertOrganizationPolicyBody,
  response: 'empty',
};

export const listScanPoliciesForOrgRoute: Route = {
  operationId: 'listScanPoliciesForOrg',
  method: 'GET',
  path: '/api/v1/policy/{orgId}/list',
  handler: 'list-scan-policies-for-org',
  tag: 'Scan Policies',
  summary: 'List Organization Scan Policies',
  auth: 'bearer',
  permission: 'read:policy',
  query: listOrganizationPoliciesQuery,
  response: 'scanpolicy.ListOrganizationScanPoliciesResponse',
};

export const getScanPolicyForOrgRoute: Route = {
  operationId: 'getScanPolicyForOrg',
  method: 'GET',
  path: '/api/v1/policy/{orgId}/{policyName}',
  handler: 'get-scan-policy-for-org',
  tag: 'Scan Policies',
  summary: 'Get Organization Scan Policy',
  auth: 'bearer',
  permission: 'read:policy',
  params: schema(() => z.object({ policyName: policyNameSchema })),
  query: schema(() => z.object({ redirect: redirectParam(false) })),
  response: 'configuration.GetHostedAssetResponse',
  mediaTypes: ['application/json'],
};

export const deleteScanPolicyForOrgRoute: Route = {
  operationId: 'deleteScanPolicyForOrg',
  method: 'DELETE',
  path: '/api/v1/policy/{orgId}/{policyName}',
  handler: 'delete-scan-policy-for-org',
  tag: 'Scan Policies',
  summary: 'Delete Organization Scan Policy',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'ORGANIZATION_POLICY_REMOVED',
  params: schema(() => z.object({ policyName: policyNameSchema })),
  response: 'empty',
};

export const getApplicationScanPolicyRoute: Route = {
  operationId: 'getApplicationScanPolicy',
  method: 'GET',
  path: '/api/v1/app/{appId}/policy',
  handler: 'get-application-scan-policy',
  tag: 'Scan Policies',
  summary: 'Get Application Scan Policy',
  auth: 'bearer',
  permission: 'read:policy',
  query: applicationPolicyQuery,
  response: 'application.GetApplicationScanPolicyResponse',
};

export const assignAppPluginsRoute: Route = {
  operationId: 'assignAppPlugins',
  method: 'PUT',
  path: '/api/v1/app/{appId}/policy/assign',
  handler: 'assign-app-plugins',
  tag: 'Scan Policies',
  summary: 'Assign Scan Policy',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  query: policyNameQuery,
  response: 'application.UpdateApplicationScanPolicyResponse',
};

export const toggleAppPluginRoute: Route = {
  operationId: 'toggleAppPlugin',
  method: 'GET',
  path: '/api/v1/app/{appId}/policy/plugins/{pluginId}/{toggle}',
  handler: 'toggle-app-plugin',
  tag: 'Scan Policies',
  summary: 'Toggle Application Scan Policy Plugin',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  params: togglePluginParams,
  response: 'application.UpdateApplicationScanPolicyResponse',
};

export const getAppTechFlagsRoute: Route = {
  operationId: 'getAppTechFlags',
  method: 'GET',
  path: '/api/v1/app/{appId}/policy/flags',
  handler: 'get-app-tech-flags',
  tag: 'Scan Policies',
  summary: 'Get Tech Flags',
  auth: 'bearer',
  permission: 'read:policy',
  response: 'hawk.TechFlags',
  responseField: 'techFlags',
};

export const updateAppTechFlagsRoute: Route = {
  operationId: 'updateAppTechFlags',
  method: 'PUT',
  path: '/api/v1/app/{appId}/policy/flags',
  handler: 'update-app-tech-flags',
  tag: 'Scan Policies',
  summary: 'Update Tech Flags',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'TECH_FLAG_MODIFIED',
  body: techFlagsBody,
  response: 'application.UpdateApplicationScanPolicyResponse',
};

// ---- Repositories (docs/DATA-MODEL.md "Repositories")
export const registerRepositoryRoute: Route = {
  operationId: 'registerRepository',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/repos',
  handler: 'register-repository',
  tag: 'Repositories',
  summary: 'Register or update a repository (this service)',
  auth: 'bearer',
  permission: 'write:repository',
  audit: 'REPO_MODIFIED',
  body: registerRepositoryBody,
  response: 'repository.Repository',
};

export const listRepositoriesRoute: Route = {
  operationId: 'listRepositories',
  method: 'GET',
  path: '/api/v1/org/{orgId}/repos',
  handler: 'list-repositories',
  tag: 'Repositories',
  summary: 'List Repositories',
  auth: 'bearer',
  permission: 'read:repository',
  query: listRepositoriesQuery,
  response: 'repository.SearchRepositoriesResponse',
};

export const createAppsForReposRoute: Route = {
  operationId: 'createAppsForRepos',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/repos/apps',
  handler: 'create-apps-for-repos',
  tag: 'Repositories',
  summary: 'Create Applications for Repositories',
  auth: 'bearer',
  permission: 'write:repository',
  audit: 'APPLICATIONS_ADDED_FOR_REPOS',
  body: createAppsForReposBody,
  response: 'repository.AddApplicationToRepoResponse',
};

export const replaceRepoAppMappingsRoute: Route = {
  operationId: 'replaceRepoAppMappings',
  method: 'POST',
  path: '/api/v1/org/{orgId}/repo/{repoId}/applications',
  handler: 'replace-repo-app-mappings',
  tag: 'Repositories',
  summary: 'Replace Repository Applications',
  auth: 'bearer',
  permission: 'write:repository',
  audit: 'APPLICATIONS_ADDED_FOR_REPOS',
  body: replaceMappingsBody,
  response: 'repository.ReplaceRepositoryAppMappingsResponse',
};

export const listRepoSensitiveDataRoute: Route = {
  operationId: 'listRepoSensitiveData',
  method: 'GET',
  path: '/api/v1/org/{orgId}/repo/{repoId}/sensitive/list',
  handler: 'list-repo-sensitive-data',
  tag: 'Repositories',
  summary: 'List Repo Sensitive Data',
  auth: 'bearer',
  permission: 'read:repository',
  query: listSensitiveDataQuery,
  response: 'codeWord.ListSensitiveDataWordsResponse',
};

// ---- Applications, environments and the audit log (docs/API.md; docs/DATA-MODEL.md)
export const createApplicationRoute: Route = {
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
};

export const getApplicationRoute: Route = {
  operationId: 'getApplication',
  method: 'GET',
  path: '/api/v1/app/{appId}',
  handler: 'get-application',
  tag: 'Applications',
  summary: 'Get Application',
  auth: 'bearer',
  permission: 'read:application',
  response: 'application.Application',
};

export const updateApplicationRoute: Route = {
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
};

export const deleteApplicationRoute: Route = {
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
};

export const createEnvironmentRoute: Route = {
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
};

export const updateEnvironmentRoute: Route = {
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
};

export const getEnvironmentDefaultConfigRoute: Route = {
  operationId: 'getEnvironmentDefaultConfig',
  method: 'GET',
  path: '/api/v1/app/{appId}/env/{envId}/config/default',
  handler: 'get-environment-default-config',
  tag: 'Applications',
  summary: 'Get environment default yaml config',
  auth: 'bearer',
  permission: 'read:scan_config',
  response: 'application.ApplicationConfigResponse',
};

export const createEnvironmentDefaultConfigRoute: Route = {
  operationId: 'createEnvironmentDefaultConfig',
  method: 'POST',
  path: '/api/v1/app/{appId}/env/{envId}/config/default',
  handler: 'create-environment-default-config',
  tag: 'Applications',
  summary: 'Create environment default yaml config',
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ENVIRONMENT_MODIFIED',
  body: createEnvironmentDefaultConfigBody,
  response: 'hawk.Empty',
};

export const deleteEnvironmentRoute: Route = {
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
};

export const listEnvsV2Route: Route = {
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
};

export const listAppsV2Route: Route = {
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
};

export const listApplicationsRoute: Route = {
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
};

export const listEnvironmentsRoute: Route = {
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
};

export const listMembersRoute: Route = {
  operationId: 'listMembers',
  method: 'GET',
  path: '/api/v1/org/{orgId}/members',
  handler: 'list-members',
  tag: 'Organizations',
  summary: 'List Members',
  auth: 'bearer',
  permission: 'read:member',
  query: listMembersQuery,
  response: 'user.ListUsersResponse',
};

export const listAuditActivityRoute: Route = {
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
};

// ---- Teams (docs/API.md "Teams"; docs/DATA-MODEL.md "Teams")
export const getTeamRoute: Route = {
  operationId: 'getTeam',
  method: 'GET',
  path: '/api/v1/org/{orgId}/team/{teamId}',
  handler: 'get-team',
  tag: 'Organization Teams',
  summary: 'Get Team',
  auth: 'bearer',
  permission: 'read:team',
  response: 'organization.TeamByIdResponse',
};

export const updateTeamsRoute: Route = {
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
};

export const deleteTeamRoute: Route = {
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
};

export const updateApplicationTeamRoute: Route = {
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
};

export const createTeamRoute: Route = {
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
};

export const listTeamsForOrgAndUserRoute: Route = {
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
};

export const listTeamsForOrgRoute: Route = {
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
};

// ---- Scans: the scanner reports them, the API reads them (docs/DATA-MODEL.md "Scans")
export const reportScanStartedRoute: Route = {
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
  maxBodyBytes: SCAN_START_BODY_BYTES,
  bodyAfterAccess: true,
  response: 'hawk.ScanStarted',
};

export const reportScanAlertsRoute: Route = {
  operationId: 'reportScanAlerts',
  method: 'POST',
  path: '/api/v1/scan/{scanId}/alerts',
  handler: 'report-scan-alerts',
  tag: 'Scan Results',
  summary: 'Report scan findings (scanner)',
  auth: 'bearer',
  permission: 'write:scan',
  body: scanAlertsBody,
  maxBodyBytes: FINDINGS_REPORT_BODY_BYTES,
  bodyAfterAccess: true,
  response: 'hawk.ScanAlertsReported',
};

export const reportScanCompletedRoute: Route = {
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
};

export const importScanReportRoute: Route = {
  operationId: 'importScanReport',
  method: 'POST',
  path: '/api/v1/app/{appId}/scan/import',
  handler: 'import-scan-report',
  tag: 'Scan Results',
  summary: "Import a scanner's report (ZAP, Wapiti, Nuclei, Burp Suite, SARIF) as a completed scan (ours)",
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'SCAN_COMPLETED',
  query: importScanQuery,
  rawBody: { contentTypes: IMPORT_CONTENT_TYPES, maxBytes: IMPORT_BODY_BYTES },
  response: 'hawk.ScanImported',
};

// ---- Perch: hosted scans (docs/HOSTED-SCANS.md). The public operations, then the agent's, which are ours.
export const startScanRoute: Route = {
  operationId: 'startScan',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/start',
  handler: 'start-scan',
  tag: 'Perch',
  summary: 'Start a hosted scan',
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'SCAN_STARTED',
  body: perchCommandBody,
  response: 'user.ProvisionPerchResponse',
};

export const stopScanRoute: Route = {
  operationId: 'stopScan',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/stop',
  handler: 'stop-scan',
  tag: 'Perch',
  summary: 'Stop a hosted scan',
  auth: 'bearer',
  permission: 'write:scan',
  audit: 'SCAN_ERRORED',
  body: perchCommandBody,
  response: 'perch.PerchCommandResponse',
};

export const getScanStatusRoute: Route = {
  operationId: 'getScanStatus',
  method: 'GET',
  path: '/api/v1/app/{appId}/perch/status',
  handler: 'get-scan-status',
  tag: 'Perch',
  summary: 'Get the status of a scan',
  auth: 'bearer',
  permission: 'read:device',
  response: 'perch.GetPerchDeviceResponse',
};

export const searchDevicesRoute: Route = {
  operationId: 'searchDevices',
  method: 'POST',
  path: '/api/v1/org/{orgId}/perch/status',
  handler: 'search-devices',
  tag: 'Perch',
  summary: 'Search devices for multiple apps',
  auth: 'bearer',
  permission: 'read:device',
  body: searchDevicesBody,
  response: 'perch.SearchDevicesResponse',
};

export const verifyScanTargetRoute: Route = {
  operationId: 'verifyScanTarget',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/verify',
  handler: 'verify-scan-target',
  tag: 'Perch',
  summary: "Verify a CLOUD application's scan target (ours)",
  auth: 'bearer',
  permission: 'write:scan',
  response: 'hawk.ScanTargetVerification',
};

export const getScanRunLogRoute: Route = {
  operationId: 'getScanRunLog',
  method: 'GET',
  path: '/api/v1/app/{appId}/perch/log',
  handler: 'get-scan-run-log',
  tag: 'Perch',
  summary: "A hosted scan's state, phase and log (ours)",
  auth: 'bearer',
  permission: 'read:device',
  query: readRunLogQuery,
  response: 'hawk.ScanRunLog',
  mediaTypes: ['application/json'],
};

export const listDevicesRoute: Route = {
  operationId: 'listDevices',
  method: 'GET',
  path: '/api/v1/org/{orgId}/perch/devices',
  handler: 'list-devices',
  tag: 'Perch',
  summary: "The organization's scanner agents, their status and current scan (ours)",
  auth: 'bearer',
  permission: 'read:device',
  response: 'hawk.DeviceList',
};

export const registerDeviceRoute: Route = {
  operationId: 'registerDevice',
  method: 'POST',
  path: '/api/v1/org/{orgId}/perch/devices',
  handler: 'register-device',
  tag: 'Perch',
  summary: 'Register a scanner agent (agent; ours)',
  auth: 'bearer',
  permission: 'write:device',
  body: registerDeviceBody,
  response: 'hawk.RegisteredDevice',
};

export const pollDeviceCommandRoute: Route = {
  operationId: 'pollDeviceCommand',
  method: 'POST',
  path: '/api/v1/org/{orgId}/perch/devices/{deviceId}/poll',
  handler: 'poll-device-command',
  tag: 'Perch',
  summary: "Wait for an agent's next command; the heartbeat (agent; ours)",
  auth: 'bearer',
  permission: 'write:device',
  body: pollBody,
  response: 'hawk.DeviceCommandPoll',
};

export const acknowledgeDeviceCommandRoute: Route = {
  operationId: 'acknowledgeDeviceCommand',
  method: 'POST',
  path: '/api/v1/org/{orgId}/perch/devices/{deviceId}/commands/{commandId}/ack',
  handler: 'acknowledge-device-command',
  tag: 'Perch',
  summary: 'Acknowledge a command by id (agent; ours)',
  auth: 'bearer',
  permission: 'write:device',
  body: schema(() => z.object({ applicationId: uuidSchema() })),
  response: 'hawk.DeviceCommandAck',
};

export const updateScanRunRoute: Route = {
  operationId: 'updateScanRun',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/runs/{scanKey}',
  handler: 'update-scan-run',
  tag: 'Perch',
  summary: "Report a hosted scan's phase or end (agent; ours)",
  auth: 'bearer',
  permission: 'write:device',
  params: scanKeyParams,
  body: runUpdateBody,
  response: 'perch.GetPerchDeviceResponse',
};

export const uploadScanRunLogRoute: Route = {
  operationId: 'uploadScanRunLog',
  method: 'PUT',
  path: '/api/v1/app/{appId}/perch/runs/{scanKey}/log',
  handler: 'upload-scan-run-log',
  tag: 'Perch',
  summary: "Store a hosted scan's log (agent; ours)",
  auth: 'bearer',
  permission: 'write:device',
  params: scanKeyParams,
  query: runLogQuery,
  rawBody: { contentTypes: ['text/plain'], maxBytes: MAX_RUN_LOG_BYTES },
  response: 'empty',
};

// ---- Profile scans (docs/PROFILE-SCANS.md): launched on the hosted-scan channel, read with the Profile Scans group.
export const launchProfileScanRoute: Route = {
  operationId: 'launchProfileScan',
  method: 'POST',
  path: '/api/v1/app/{appId}/perch/profile-scan',
  handler: 'launch-profile-scan',
  tag: 'Perch',
  summary: 'Launch Profile Scan',
  auth: 'bearer',
  permission: 'write:device',
  audit: 'SCAN_STARTED',
  response: 'user.ProvisionPerchResponse',
};

export const uploadProfileScanResultRoute: Route = {
  operationId: 'uploadProfileScanResult',
  method: 'PUT',
  path: '/api/v1/app/{appId}/perch/runs/{scanKey}/profile',
  handler: 'upload-profile-scan-result',
  tag: 'Perch',
  summary: "Store a profile scan's result, which ends it (agent; ours)",
  auth: 'bearer',
  permission: 'write:device',
  params: scanKeyParams,
  query: profileResultQuery,
  body: profileResultBody,
  maxBodyBytes: MAX_PROFILE_RESULT_BYTES,
  bodyAfterAccess: true,
  response: 'empty',
};

export const getLatestProfileScanResultRoute: Route = {
  operationId: 'getLatestProfileScanResult',
  method: 'GET',
  path: '/api/v1/app/{appId}/profile/results',
  handler: 'get-latest-profile-scan-result',
  tag: 'Profile Scans',
  summary: 'Get latest profile scan result',
  auth: 'bearer',
  permission: 'read:scan',
  response: 'scanresults.ProfileScanResult',
};

export const listProfileScanResultsRoute: Route = {
  operationId: 'listProfileScanResults',
  method: 'GET',
  path: '/api/v1/app/{appId}/profile/results/list',
  handler: 'list-profile-scan-results',
  tag: 'Profile Scans',
  summary: 'List profile scan results',
  auth: 'bearer',
  permission: 'read:scan',
  query: listProfileResultsQuery,
  response: 'scanresults.ListProfileScanResultsResponse',
};

export const getProfileScanResultRoute: Route = {
  operationId: 'getProfileScanResult',
  method: 'GET',
  path: '/api/v1/app/{appId}/profile/results/{scanId}',
  handler: 'get-profile-scan-result',
  tag: 'Profile Scans',
  summary: 'Get specific profile scan result',
  auth: 'bearer',
  permission: 'read:scan',
  response: 'scanresults.ProfileScanResult',
};

export const useDiscoveredOpenApiSpecRoute: Route = {
  operationId: 'useDiscoveredOpenApiSpec',
  method: 'POST',
  path: '/api/v1/app/{appId}/profile/results/{scanId}/use-spec',
  handler: 'use-discovered-open-api-spec',
  tag: 'Profile Scans',
  summary: "Make a profile scan's discovered API description the application's hosted one (ours)",
  auth: 'bearer',
  permission: 'write:scan_config',
  audit: 'ORGANIZATION_CONFIGURATION_MODIFIED',
  response: 'hawk.UploadOASResponse',
  mediaTypes: ['application/json'],
};

export const bulkGetLatestProfileScanResultsRoute: Route = {
  operationId: 'bulkGetLatestProfileScanResults',
  method: 'POST',
  path: '/api/v1/org/{orgId}/profile/results',
  handler: 'bulk-get-latest-profile-scan-results',
  tag: 'Profile Scans',
  summary: 'Bulk get latest profile scan results',
  auth: 'bearer',
  permission: 'read:scan',
  body: bulkProfileResultsBody,
  response: 'com.stackhawk.falcon.controllers.BulkProfileScanResultsResponse',
  mediaTypes: ['application/json'],
};

export const listScansRoute: Route = {
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
};

export const deleteScanRoute: Route = {
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
};

export const listScanAlertsRoute: Route = {
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
};

export const listScanAlertFindingsRoute: Route = {
  operationId: 'listScanAlertFindings',
  method: 'GET',
  path: '/api/v1/scan/{scanId}/alert/{pluginId}',
  handler: 'list-scan-alert-findings',
  tag: 'Scan Results',
  summary: 'List Scan Alert Findings',
  auth: 'bearer',
  permission: 'read:scan',
  params: schema(() => z.object({ pluginId: pluginIdSchema })),
  query: listAlertFindingsQuery,
  response: 'application.AlertResponse',
};

export const getScanSarifRoute: Route = {
  operationId: 'getScanSarif',
  method: 'GET',
  path: '/api/v1/scan/{scanId}/sarif',
  handler: 'get-scan-sarif',
  tag: 'Scan Results',
  summary: "A scan's findings as a SARIF 2.1.0 log for GitHub code scanning (ours)",
  auth: 'bearer',
  permission: 'read:scan',
  query: scanSarifQuery,
  response: 'raw',
  rawSchema: { description: 'A SARIF 2.1.0 log', url: 'https://json.schemastore.org/sarif-2.1.0.json' },
  mediaTypes: ['application/sarif+json', 'application/json'],
};

// ---- Findings: triage, the findings report, members (docs/DATA-MODEL.md "Findings")
export const bulkTriageFindingsRoute: Route = {
  operationId: 'bulkTriageFindings',
  method: 'POST',
  path: '/api/v1/org/{orgId}/app/{appId}/env/{envId}/findings/triage',
  handler: 'bulk-triage-findings',
  tag: 'Scan Results',
  summary: 'Bulk triage findings by hash',
  auth: 'bearer',
  permission: 'write:triage',
  audit: 'ALERT_RULE_TRIAGED',
  body: bulkTriageBody,
  response: 'application.BulkTriageFindingsByHashResponse',
};

export const upsertAlertRuleRoute: Route = {
  operationId: 'upsertAlertRule',
  method: 'POST',
  path: '/api/v1/app/{appId}/alerts/rules/{integrationId}',
  handler: 'upsert-alert-rule',
  tag: 'Applications',
  summary: 'Upsert alert rule',
  auth: 'bearer',
  permission: 'write:triage',
  audit: 'ALERT_RULE_TRIAGED',
  body: upsertAlertRulesBody,
  response: 'application.UpsertAlertRulesResponse',
};

export const listOrganizationFindingsRoute: Route = {
  operationId: 'listOrganizationFindings',
  method: 'GET',
  path: '/api/v1/reports/org/{orgId}/findings',
  handler: 'list-organization-findings',
  tag: 'Reports',
  summary: 'Organization Findings',
  auth: 'bearer',
  permission: 'read:report',
  query: findingsReportQuery,
  response: 'reports.CurrentFindingsResponse',
  mediaTypes: ['application/json', 'text/csv'],
};

export const getAlertMessagesRoute: Route = {
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
};

export const getConfigRoute: Route = {
  operationId: 'getConfig',
  method: 'GET',
  path: '/api/v1/app/{appId}/config/{configHash}',
  handler: 'get-config',
  tag: 'Applications',
  summary: 'Get Application Config',
  auth: 'bearer',
  permission: 'read:scan_config',
  params: schema(() => z.object({ configHash: configHashSchema })),
  response: 'application.ApplicationConfigResponse',
};
// ---- Webhooks: subscriptions to the organization's events, delivered signed (docs/WEBHOOKS.md)
export const createWebhookRoute: Route = {
  operationId: 'createWebhook',
  method: 'POST',
  path: '/api/v1/org/{orgId}/webhooks',
  handler: 'create-webhook',
  tag: 'Webhooks',
  summary: 'Create a webhook subscription (ours); its signing secret is in this answer only',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_ADDED',
  body: createWebhookBody,
  response: 'hawk.WebhookWithSecret',
};

export const listWebhooksRoute: Route = {
  operationId: 'listWebhooks',
  method: 'GET',
  path: '/api/v1/org/{orgId}/webhooks',
  handler: 'list-webhooks',
  tag: 'Webhooks',
  summary: "List the organization's webhook subscriptions (ours)",
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.ListWebhooksResponse',
};

export const getWebhookRoute: Route = {
  operationId: 'getWebhook',
  method: 'GET',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}',
  handler: 'get-webhook',
  tag: 'Webhooks',
  summary: 'Get a webhook subscription (ours)',
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.WebhookResponse',
};

export const updateWebhookRoute: Route = {
  operationId: 'updateWebhook',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}',
  handler: 'update-webhook',
  tag: 'Webhooks',
  summary: 'Change a webhook subscription or rotate its secret (ours)',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_MODIFIED',
  body: updateWebhookBody,
  response: 'hawk.WebhookWithSecret',
};

export const deleteWebhookRoute: Route = {
  operationId: 'deleteWebhook',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}',
  handler: 'delete-webhook',
  tag: 'Webhooks',
  summary: 'Remove a webhook subscription (ours)',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_REMOVED',
  response: 'hawk.Empty',
};

export const listWebhookDeliveriesRoute: Route = {
  operationId: 'listWebhookDeliveries',
  method: 'GET',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}/deliveries',
  handler: 'list-webhook-deliveries',
  tag: 'Webhooks',
  summary: "A webhook subscription's delivery log, newest first (ours)",
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.ListWebhookDeliveriesResponse',
};

export const testWebhookRoute: Route = {
  operationId: 'testWebhook',
  method: 'POST',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}/test',
  handler: 'test-webhook',
  tag: 'Webhooks',
  summary: 'Send a signed test event to a webhook subscription and answer its first attempt (ours)',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_MODIFIED',
  response: 'hawk.WebhookDeliveryResponse',
};

export const redeliverWebhookDeliveryRoute: Route = {
  operationId: 'redeliverWebhookDelivery',
  method: 'POST',
  path: '/api/v1/org/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
  handler: 'redeliver-webhook-delivery',
  tag: 'Webhooks',
  summary: 'Deliver an event to a webhook subscription again, as a new delivery (ours)',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_MODIFIED',
  response: 'hawk.WebhookDeliveryResponse',
};

export const getIntegrationSettingsRoute: Route = {
  operationId: 'getIntegrationSettings',
  method: 'GET',
  path: '/api/v1/org/{orgId}/integrations/settings',
  handler: 'get-integration-settings',
  tag: 'Webhooks',
  summary: "Get the organization's integration settings (ours)",
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.IntegrationSettings',
};

export const updateIntegrationSettingsRoute: Route = {
  operationId: 'updateIntegrationSettings',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/integrations/settings',
  handler: 'update-integration-settings',
  tag: 'Webhooks',
  summary: 'Allow or refuse receivers on private networks (ours; owners and administrators)',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_MODIFIED',
  body: integrationSettingsBody,
  response: 'hawk.IntegrationSettings',
};

// ---- Issue trackers: connections to Jira and GitHub that findings are promoted to (docs/TRACKERS.md)
export const createTrackerRoute: Route = {
  operationId: 'createTracker',
  method: 'POST',
  path: '/api/v1/org/{orgId}/integrations/trackers',
  handler: 'create-tracker',
  tag: 'Issue Trackers',
  summary: 'Connect a Jira (Cloud, Server, Data Center) or GitHub issue tracker (ours); the token is never shown again',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_ADDED',
  body: createTrackerBody,
  response: 'hawk.TrackerResponse',
};

export const listTrackersRoute: Route = {
  operationId: 'listTrackers',
  method: 'GET',
  path: '/api/v1/org/{orgId}/integrations/trackers',
  handler: 'list-trackers',
  tag: 'Issue Trackers',
  summary: "List the organization's issue tracker connections (ours)",
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.ListTrackersResponse',
};

export const getTrackerRoute: Route = {
  operationId: 'getTracker',
  method: 'GET',
  path: '/api/v1/org/{orgId}/integrations/trackers/{trackerId}',
  handler: 'get-tracker',
  tag: 'Issue Trackers',
  summary: 'Get an issue tracker connection (ours)',
  auth: 'bearer',
  permission: 'read:integration',
  response: 'hawk.TrackerResponse',
};

export const updateTrackerRoute: Route = {
  operationId: 'updateTracker',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/integrations/trackers/{trackerId}',
  handler: 'update-tracker',
  tag: 'Issue Trackers',
  summary: 'Change an issue tracker connection or replace its token (ours)',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_MODIFIED',
  body: updateTrackerBody,
  response: 'hawk.TrackerResponse',
};

export const deleteTrackerRoute: Route = {
  operationId: 'deleteTracker',
  method: 'DELETE',
  path: '/api/v1/org/{orgId}/integrations/trackers/{trackerId}',
  handler: 'delete-tracker',
  tag: 'Issue Trackers',
  summary: 'Remove an issue tracker connection (ours); its tickets stay',
  auth: 'bearer',
  permission: 'write:integration',
  audit: 'INTEGRATION_REMOVED',
  response: 'hawk.Empty',
};

// ---- Findings governance: the SLA policy and risk acceptances that expire (docs/GOVERNANCE.md)
export const getSlaPolicyRoute: Route = {
  operationId: 'getSlaPolicy',
  method: 'GET',
  path: '/api/v1/org/{orgId}/sla',
  handler: 'get-sla-policy',
  tag: 'Reports',
  summary: "Get the organization's SLA policy (ours)",
  auth: 'bearer',
  permission: 'read:policy',
  response: 'hawk.SlaPolicy',
};

export const updateSlaPolicyRoute: Route = {
  operationId: 'updateSlaPolicy',
  method: 'PUT',
  path: '/api/v1/org/{orgId}/sla',
  handler: 'update-sla-policy',
  tag: 'Reports',
  summary: "Set the organization's SLA policy: days per severity, risk acceptance default and maximum (ours)",
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'ORGANIZATION_POLICY_MODIFIED',
  body: slaPolicyBody,
  response: 'hawk.SlaPolicy',
};

export const getScanSlaRoute: Route = {
  operationId: 'getScanSla',
  method: 'GET',
  path: '/api/v1/scan/{scanId}/sla',
  handler: 'get-scan-sla',
  tag: 'Scan Results',
  summary: "A scan's findings past their due date now (ours; hawk-scanner import --fail-on overdue)",
  auth: 'bearer',
  permission: 'read:scan',
  response: 'hawk.ScanSla',
};

export const getApplicationSlaRoute: Route = {
  operationId: 'getApplicationSla',
  method: 'GET',
  path: '/api/v1/app/{appId}/sla',
  handler: 'get-application-sla',
  tag: 'Reports',
  summary: 'The SLA days of an application and of its environments: their overrides and the days that apply (ours)',
  auth: 'bearer',
  permission: 'read:policy',
  response: 'hawk.ApplicationSla',
};

export const updateApplicationSlaRoute: Route = {
  operationId: 'updateApplicationSla',
  method: 'PUT',
  path: '/api/v1/app/{appId}/sla',
  handler: 'update-application-sla',
  tag: 'Reports',
  summary: "Override the organization's SLA days for an application (ours)",
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  body: slaOverrideBody,
  response: 'hawk.ApplicationSla',
};

export const deleteApplicationSlaRoute: Route = {
  operationId: 'deleteApplicationSla',
  method: 'DELETE',
  path: '/api/v1/app/{appId}/sla',
  handler: 'delete-application-sla',
  tag: 'Reports',
  summary: "Remove an application's SLA override (ours)",
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  response: 'empty',
};

export const updateEnvironmentSlaRoute: Route = {
  operationId: 'updateEnvironmentSla',
  method: 'PUT',
  path: '/api/v1/app/{appId}/env/{envId}/sla',
  handler: 'update-environment-sla',
  tag: 'Reports',
  summary: 'Override the SLA days for an environment (ours)',
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  body: slaOverrideBody,
  response: 'hawk.ApplicationSla',
};

export const deleteEnvironmentSlaRoute: Route = {
  operationId: 'deleteEnvironmentSla',
  method: 'DELETE',
  path: '/api/v1/app/{appId}/env/{envId}/sla',
  handler: 'delete-environment-sla',
  tag: 'Reports',
  summary: "Remove an environment's SLA override (ours)",
  auth: 'bearer',
  permission: 'write:policy',
  audit: 'APPLICATION_POLICY_MODIFIED',
  response: 'empty',
};

export const getOrganizationTrendsRoute: Route = {
  operationId: 'getOrganizationTrends',
  method: 'GET',
  path: '/api/v1/org/{orgId}/trends',
  handler: 'get-organization-trends',
  tag: 'Reports',
  summary: "The organization's findings trends per day: open, new, fixed, reopened, time to fix, SLA, coverage (ours)",
  auth: 'bearer',
  permission: 'read:scan',
  query: trendsQuery,
  response: 'hawk.Trends',
};

export const getApplicationTrendsRoute: Route = {
  operationId: 'getApplicationTrends',
  method: 'GET',
  path: '/api/v1/org/{orgId}/app/{appId}/trends',
  handler: 'get-application-trends',
  tag: 'Reports',
  summary: "An application's findings trends per day (ours)",
  auth: 'bearer',
  permission: 'read:scan',
  query: trendsQuery,
  response: 'hawk.Trends',
};

export const getEnvironmentTrendsRoute: Route = {
  operationId: 'getEnvironmentTrends',
  method: 'GET',
  path: '/api/v1/org/{orgId}/app/{appId}/env/{envId}/trends',
  handler: 'get-environment-trends',
  tag: 'Reports',
  summary: "An environment's findings trends per day (ours)",
  auth: 'bearer',
  permission: 'read:scan',
  query: trendsQuery,
  response: 'hawk.Trends',
};

export const getOrganizationOverviewRoute: Route = {
  operationId: 'getOrganizationOverview',
  method: 'GET',
  path: '/api/v1/org/{orgId}/overview',
  handler: 'get-organization-overview',
  tag: 'Reports',
  summary: "The organization's riskiest applications, most overdue findings and coverage gaps (ours)",
  auth: 'bearer',
  permission: 'read:report',
  response: 'hawk.OrganizationOverview',
};

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
  signOutRoute,
  listMemberRolesRoute,
  updateMemberRoute,
  removeMemberRoute,
  createInvitationRoute,
  listInvitationsRoute,
  revokeInvitationRoute,
  acceptInvitationRoute,
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
  getApplicationSlaRoute,
  updateApplicationSlaRoute,
  deleteApplicationSlaRoute,
  updateEnvironmentSlaRoute,
  deleteEnvironmentSlaRoute,
  getOrganizationTrendsRoute,
  getApplicationTrendsRoute,
  getEnvironmentTrendsRoute,
  getOrganizationOverviewRoute,
  startScanRoute,
  stopScanRoute,
  getScanStatusRoute,
  searchDevicesRoute,
  verifyScanTargetRoute,
  getScanRunLogRoute,
  listDevicesRoute,
  registerDeviceRoute,
  pollDeviceCommandRoute,
  acknowledgeDeviceCommandRoute,
  updateScanRunRoute,
  uploadScanRunLogRoute,
  launchProfileScanRoute,
  uploadProfileScanResultRoute,
  getLatestProfileScanResultRoute,
  listProfileScanResultsRoute,
  getProfileScanResultRoute,
  bulkGetLatestProfileScanResultsRoute,
  useDiscoveredOpenApiSpecRoute,
];

/** Matches a concrete path against a route's path; the groups are the parameters' values, in order. */
export function pathPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{\w+\}/g, '([^/]+)')}/?$`);
}

/** Names of a path's parameters, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
}

/**
 * API Gateway wants one name per path position: `/scan/{orgId}` (GET) and `/scan/{scanId}` (DELETE) are the same
 * route shape. Each parameter is renamed after the first route that reaches that position. API Gateway passes
 * `pathParameters` under these names; the pipeline reads them back by position from the event's route key (routeKeyParameterNames).
 */
let gatewayPathsOfAllRoutes: Map<Route, string> | undefined;
export function apiGatewayPaths(all: Route[] = routes): Map<Route, string> {
  if (all === routes) return (gatewayPathsOfAllRoutes ??= gatewayPaths(all));
  return gatewayPaths(all);
}

function gatewayPaths(all: Route[]): Map<Route, string> {
  const canonical = new Map<string, string>();
  const result = new Map<Route, string>();
  for (const route of all) {
    const segments = route.path.split('/');
    const renamed = segments.map((segment, i) => {
      if (!segment.startsWith('{')) return segment;
      const prefix = segments
        .slice(0, i)
        .map((s) => (s.startsWith('{') ? '{}' : s))
        .join('/');
      if (!canonical.has(prefix)) canonical.set(prefix, segment);
      return canonical.get(prefix)!;
    });
    result.set(route, renamed.join('/'));
  }
  return result;
}

/**
 * The names API Gateway gave an event's path parameters: those of its route key (`GET /api/v1/app/{appId}`, the
 * template the stack registered), in path order. Read from the event, so that a function needs no other route.
 */
export function routeKeyParameterNames(routeKey: string): string[] {
  return pathParameterNames(routeKey.slice(routeKey.indexOf(' ') + 1));
}

/** The names API Gateway gives a route's path parameters, in path order (the route's own names differ at shared positions). */
export function gatewayParameterNames(route: Route): string[] {
  return pathParameterNames(apiGatewayPaths().get(route) ?? route.path);
}
