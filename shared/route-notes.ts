// The operations' notes for the OpenAPI description (openapi.json), keyed by operationId. Only the OpenAPI generator
// reads them: the route table, which every Lambda bundle carries, keeps to what the runtime needs.
import {
  DESCRIPTION_LIMITS,
  DESCRIPTION_VALIDATION,
  FINDINGS_REPORT_LIMITS,
  IMPORT_LIMITS,
  MAX_PATTERN_LENGTH,
  SCAN_CONFIG_LIMITS,
  SCAN_START_BODY_BYTES,
} from './limits.ts';

/** How a deprecated (V1) list pages to its end (README "Paging"), given its end marker. */
const v1Paging = (endMarker: string) =>
  'After the last page, `nextPageToken` names a page past the end (`totalCount` + 1), which answers an empty ' +
  `list and the end marker (\`nextPageToken\` ${endMarker}). An empty \`pageToken\` is page 0; \`pageToken=-1\` ` +
  'answers an empty list with an empty `nextPageToken`.';

const MiB = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;
const documentLimits = (limits: typeof SCAN_CONFIG_LIMITS | typeof DESCRIPTION_LIMITS) =>
  `nesting at most ${limits.maxDepth} levels deep, at most ${limits.maxNodes} keys and values and ${limits.maxAliases} aliases ` +
  '(aliases that expand too much are refused), no duplicate keys';

export const routeNotes: Record<string, string> = {
  startScan:
    "Queues a hosted scan of a CLOUD application for its organization's scanner agents (docs/HOSTED-SCANS.md) and answers its `scanKey`. " +
    'Body: `{"command":{"command":"START","config":"<stackhawk.yml>"},"env":"<env>"}` or hawkop\'s `{"command":{"command":"START"},"scanConfig":"<organization scan configuration name>","env":...}`; ' +
    'any command string and extra fields are accepted. Without a configuration the scan uses `app.host` = the target URL. ' +
    "409: a scan is already running for the application; 400: not a CLOUD application, or its target (or the configuration's `app.host`) is not verified " +
    "(a DNS TXT record or a `/.well-known/hawk-verification.txt` file with the organization's token, or an operator's allowlist), re-checked on every start; 404: unknown application.",
  stopScan:
    "Stops the application's hosted scan, queued or running: its agent stops the engine, the scan ends in ERROR (findings reported before the stop are kept) " +
    'and the device is free at once. Answers `HOSTED_SCANNER_DISCONNECTED`; 404 when no scan is active.',
  getScanStatus:
    'The current or last hosted scan as a `perch.PerchDevice`: status RUNNING for the whole active scan (queued or carried out), ' +
    'HOSTED_SCANNER_DISCONNECTED once completed or stopped, HOSTED_SCANNER_ERRORED with `command.errors` (AUTHENTICATION, PROVISIONING, DEVICE, UNKNOWN) when it failed. ' +
    'A scan whose agent stopped sending heartbeats ends in ERROR (DEVICE) when read. `{}` when the application never had one.',
  searchDevices:
    'The hosted scans of the applications in the `queryAppIds` filter (`page.filters[{name:"queryAppIds", value:"id,id"}]` or `multi.values`), at most 100; ' +
    "none without the filter. 403 when one of them is not the organization's (or not visible to the caller's teams). A scan whose agent went silent shows OFFLINE.",
  verifyScanTarget:
    "Checks the CLOUD application's target now and records the outcome (`cloudScanTarget.isDomainVerified`): allowlisted by an operator, or the organization's `token` " +
    'in a DNS TXT record at `dnsRecordName` or in the file at `wellKnownUrl` (fetched at the address resolved once, never a private one). `problem` says what to do.',
  getScanRunLog:
    "A hosted scan's state, phase, errors and log (agent events, engine output, each phase with its time), the current or last one unless `scanKey` names an earlier one.",
  listDevices:
    "The organization's scanner agents: each one's status (ONLINE, or OFFLINE when not heard from for the offline window), last heartbeat, " +
    'engines and the hosted scan it carries (`scanKey`, `applicationId`; empty when idle). At most 100: registering one more replaces the idle agent silent the longest.',
  registerDevice:
    'A scanner agent (`hawk-scanner agent`) becomes a device of the organization; sending its `deviceId` again re-registers the same device ' +
    '(a scan it was carrying ends in ERROR). Answers how often to poll.',
  pollDeviceCommand:
    "The agent's heartbeat and long poll: answers its next command (SCAN_START, or SCAN_STOP for the scan it carries) as soon as there is one, " +
    'or nothing after `waitSeconds` (at most 25 s, and half the offline window). A device not heard from for the offline window reads OFFLINE.',
  acknowledgeDeviceCommand:
    "Takes a SCAN_START (the scan becomes the device's) or confirms a SCAN_STOP, by command id: acknowledged again by the same device it answers " +
    '`alreadyAcknowledged` (so a command delivered twice runs once); 409 when another device took it or it was stopped.',
  updateScanRun:
    "The carrying agent reports its phase, its reported scan's id, or the end (COMPLETED, or ERROR with `error.errorType` and message), which frees the device. " +
    'A scan that already ended (stopped) is answered as it is, so the agent stops.',
  launchProfileScan:
    "Queues a profile scan of a CLOUD application's verified target (docs/PROFILE-SCANS.md) for the organization's scanner agents and answers its `scanKey`: " +
    'a bounded probe (same origin, robots.txt, request and time budgets) that finds API descriptions, login markers and the shape of the target, ' +
    'and suggests a scan configuration. No body. 409: a scan or profile is already running for the application; 400: not a CLOUD application, or its target is not verified; 404: unknown application.',
  uploadProfileScanResult:
    "The carrying agent stores its profile scan's result (`scanresults.ProfileScanResult`), which ends the run as COMPLETED in the same transaction. " +
    'With it, `discoveredOpenapiSpec`: the text of the API description it found (at most 2 MiB), validated as uploadOASForApplication validates, and kept when valid; the result says what the validation found. ' +
    '409: the run already ended (stopped, or ended for a silent agent); 400: the run is a scan, not a profile.',
  getLatestProfileScanResult:
    "The application's newest profile scan result; 404 until one exists. Fields of ours after the public ones: `suggestedScanConfig` (the suggested stackhawk.yml, " +
    'also the first recommendation), `requestsSent`, `durationMs`, `stoppedBy` (REQUEST_BUDGET or TIME_BUDGET when a budget cut the profile short), `notes` (what the probe cut, refused or could not read), ' +
    'and the discovered description checked with the hosted-description validator: `discoveredOpenapiSpecStatus` (VALID, INVALID, NOT_VALIDATED, or empty when none was found), `discoveredOpenapiSpecVersion` and `discoveredOpenapiSpecProblem`.',
  getProfileScanResult:
    'One profile scan result of the application, by its `scanId` (the `scanKey` launchProfileScan answered).',
  useDiscoveredOpenApiSpec:
    "Makes the API description a profile scan found (kept with its result when it was valid) the application's hosted description, as uploadOASForApplication does: " +
    'validated again, stored as a new version with its ORGANIZATION_CONFIGURATION_MODIFIED entry (naming the profile scan) in one transaction, replacing the current one. No body; answers like the upload. ' +
    '400: the profile found no description, or one that is not valid (the message says why); 404: unknown application or result; 403: no `write:scan_config` for the application.',
  listProfileScanResults: "The application's profile scan results, newest first: `limit` 1 to 50, default 10.",
  bulkGetLatestProfileScanResults:
    "Each named application's newest profile scan result (at most 100 ids), keyed by the id as sent: SUCCESS with `result`, NOT_FOUND (no result yet, or an application the caller cannot see), " +
    'or ERROR (an id that is not a UUID, or a read that failed) with `errorMessage`.',
  uploadScanRunLog:
    "The carrying agent stores the scan's whole log so far (text, at most 1 MiB), replacing what it sent before.",
  login: 'Exchanges the `X-ApiKey` header for an access token (a JWT valid for 30 minutes).',
  refreshToken: 'Returns a new access token with a later expiry for a valid bearer token.',
  getUser: 'The calling user, with the organizations (API access enabled) it belongs to and its role in each.',
  createUserKey:
    'Creates an API key of the caller (docs/IDENTITY.md "API keys"): `name`, optional `expiresAt` (ISO 8601 or ms ' +
    'since the epoch, in the future), optional `permissions` and `applicationId` narrowing it. The answer holds the ' +
    'key itself (`apiKey`), shown only here: only its hash is stored. At most 50 keys per user (409). A session of a ' +
    'narrowed key cannot create keys (401).',
  listUserKeys:
    "The caller's API keys, newest first: metadata only (`lastUsedAt` to the minute; empty times: never), never " +
    'the secret or its hash.',
  revokeUserKey:
    'Revokes an API key of the caller: login with it and refresh of the tokens it issued answer 401 from now on, ' +
    'and its tokens are refused at once by every operation that authorizes against an organization. 404: no such ' +
    'key of the caller.',
  listOrganizationKeys:
    "Every member's API keys (metadata only, with the member's `userId` and `userEmail`), paged by member " +
    '(`pageSize` members, at most 100; `totalCount` counts members).',
  revokeMemberKey:
    "Revokes a member's API key, as revokeUserKey does; audited in this organization. 404: not a key of a member.",
  listMemberRoles:
    'The named roles (OWNER, ADMIN, MEMBER, READ_ONLY, SCANNER: name, the public role shown for it, its permissions) ' +
    "and a page of members (by user id; `pageSize` at most 100) with each one's named role (`roleName`, CUSTOM for a " +
    'set of its own) and permissions (docs/IDENTITY.md "Members and roles").',
  updateMember:
    'Changes a member\'s access: `{"role": "READ_ONLY"}` (a named role) or `{"permissions": [...]}` (a custom set, ' +
    "public role MEMBER). It applies to the member's next request. 403: granting a permission the caller does not " +
    'hold, changing a member who holds one, or making or changing an owner without being one. 409: the last owner ' +
    'would stop being one. 404: not a member of this organization.',
  removeMember:
    "Removes a member and their place in the organization's teams. Their next request to the organization is " +
    'refused, and so is refreshing their token when no other organization with API access is left to them; their ' +
    'API keys stay theirs. 409: the last owner; 403 and 404 as updateMember.',
  createInvitation:
    'Invites an e-mail address with a named `role` (default MEMBER) or a custom `permissions` set, within what the ' +
    'caller holds (403 otherwise; only owners invite owners). Optional `expiresAt` (ISO 8601 or ms since the epoch; ' +
    'default 7 days, at most 30). The answer holds the `token`, shown only here (only its hash is stored): it stands ' +
    'in for the e-mail and works once, with acceptInvitation. 409: already a member, or 200 invitations pending.',
  listInvitations: 'The pending invitations (not expired), oldest first: never their tokens.',
  revokeInvitation: "Revokes a pending invitation: its token stops working at once. 404: not this organization's.",
  acceptInvitation:
    "Accepts an invitation with its `token`, without credentials (limited per source address). The e-mail's user " +
    'becomes a member with the invited role; a user is created when the address has none (named `fullName`, or ' +
    "after the address), and the answer then holds the user's first API key (`apiKey`), shown only here. A user " +
    'who exists gets no key: they sign in with their own. 404: used, revoked or unknown; 410: expired; 409: already ' +
    'a member.',
  uploadOASForApplication:
    'The raw OpenAPI 3.0 or 3.1 description, YAML or JSON (a JSON body may also be a JSON string holding it), ' +
    `at most ${MiB(DESCRIPTION_LIMITS.maxBytes)} (413 above), with ${documentLimits(DESCRIPTION_LIMITS)}, and at most ` +
    `${DESCRIPTION_LIMITS.maxExpandedNodes} values once its internal \`$ref\`s are expanded (413/400 naming the limit). ` +
    `Validation stops after ${DESCRIPTION_VALIDATION.timeoutMs / 1000} s or ${DESCRIPTION_VALIDATION.maxHeapMb} MB of memory (413: split or simplify it). ` +
    'It is validated before it is stored: 400 says what is wrong and where (JSON ' +
    'pointer, line). One description per application, its `oasId` being the application id; re-uploading ' +
    'replaces it. 404: unknown application; 403: no `write:scan_config` for the application (team rules ' +
    'included). The response gives a presigned URL of the stored description.',
  getHostedOASForOrg:
    'The uploaded description of application `oasId`, as a short-lived presigned download URL; ' +
    '`redirect=true` answers 307 to it instead (with the same JSON body).',
  listOASAssetsForOrg:
    "The organization's hosted descriptions the caller may see (team rules of the application that uploaded each, " +
    '`oasId` being its id): each uploaded description once with no repository, and once more for each registered ' +
    'repository that lists it (`openApiSpecs` of PUT /api/v1/org/{orgId}/repos) with `repositoryId`, ' +
    '`repositoryName` and `sourceRootPath`. A `repoIds` filter keeps only those of the named repositories. ' +
    '`sortField` repoId (default) or repoName.',
  getApplicationMappedOAS:
    "The application's uploaded description (if any) and the repository-sourced descriptions it includes.",
  toggleApplicationOASMapping:
    'Includes (`include: true`) or excludes (`include` false or absent) the repository-sourced description ' +
    '`oasId` for the application. Idempotent: a request that changes nothing writes nothing.',
  getGlobalConfiguration:
    'A global HawkScan configuration published by an operator. Answers 307 to a short-lived presigned URL ' +
    '(the body holds the JSON hosted-asset response too); `redirect=false` answers 200 with that JSON. The ' +
    'permission is needed in at least one organization.',
  validateScanConfiguration:
    'Checks `conf` (a stackhawk.yml) as the scanner client does (its config schema: `app.applicationId`, `env`, ' +
    '`host`, `authentication`...) and stores nothing. Each problem is a marker naming its key path (`code`) and ' +
    "its position; no markers: valid. `${VAR}` references are left to the scanner's environment. `name` only " +
    'labels the markers (`resource`, default stackhawk.yml).',
  setScanConfigurationForOrg:
    "Creates or replaces the organization's configuration `name` (letters, digits, _ and -, at most 64). `conf` " +
    'must be one YAML mapping, at most 256 KiB (400 naming the line otherwise); use validate to check it against ' +
    "the scanner's schema. The type is read from `configType` or `type` (hawkop), ORG by default. Readers see " +
    'the old text or the new one, never a mix.',
  renameScanConfigurationForOrg:
    'Renames `originalName` to `newName` (404 when `originalName` does not exist, 409 when `newName` does).',
  listScanConfigurationsForOrg:
    "The organization's configurations by name (case-insensitive); `query` keeps names containing it. " +
    `Organization configurations belong to the organization, not to a team. ${v1Paging('empty')}`,
  getScanConfigurationForOrg:
    "The configuration's YAML as a short-lived presigned download URL; `redirect=true` answers 307 to it " +
    'instead (with the same JSON body). A configuration named `list` is reachable by rename and delete only.',
  deleteScanConfigurationForOrg: 'Deletes the configuration (404 when there is none of that name).',
  getEnvironmentDefaultConfig:
    "The environment's default HawkScan configuration (written when the environment is created, naming its " +
    '`host`, or set by the POST) and the SHA-256 of its stored text. Not audited: it changes nothing.',
  createEnvironmentDefaultConfig:
    "Replaces the environment's default configuration with `conf` (a HawkScan configuration object, at most " +
    '256 KiB as JSON). `applicationId`/`envId`, when given, must be those of the path. Team-owned applications: ' +
    'team members only.',
  allStackHawkScanPolicies:
    "The built-in policies: DEFAULT (every scan rule), API (ZAP's API policy's active rules and every passive rule) " +
    "and PASSIVE (passive rules only). Plugins are ZAP's scan rules (docs/SCAN-POLICIES.md). The permission is " +
    'needed in at least one organization.',
  getStackHawkScanPolicy:
    'One built-in policy (DEFAULT when `policyName` is absent); `status` NOT_FOUND for an unknown name.',
  setScanPolicyForOrg:
    'Creates or replaces the organization policy `scanPolicy.name` (capitals, digits and _; not a built-in name). ' +
    'Listed plugins take their `enabled`; plugins not listed are disabled. Unknown plugin ids or tech flags: 400 ' +
    'naming them. Tech flags not given are on.',
  listScanPoliciesForOrg:
    "The organization's own policies, by `name` (default) or `displayName`; `nextPage` and `prevPage` describe the " +
    `neighbouring pages (number, size, sort) when they exist. ${v1Paging('empty')}`,
  getScanPolicyForOrg:
    'The policy as a JSON `scanpolicy.ScanPolicy` document behind a short-lived presigned download URL; ' +
    '`redirect=true` answers 307 to it instead.',
  deleteScanPolicyForOrg:
    'Deletes the organization policy. Applications assigned from it keep their copy of its plugins.',
  getApplicationScanPolicy:
    "The application's policy: its own (assigned, then toggled) or DEFAULT with every tech flag on. `policyName` " +
    'answers that built-in or organization policy instead; `policyConfigured=true` answers `status` NOT_FOUND ' +
    'unless the application has a policy of its own. Team-owned applications: team members only. The effective ' +
    "policy also appears as `conf.app.scanPolicy` in Get Application Config when the scan's configuration names none.",
  assignAppPlugins:
    "The application's plugins become those of the built-in or organization policy `policyName` (400 naming " +
    'an unknown one); its tech flags stay.',
  toggleAppPlugin:
    "Enables or disables one plugin of the application's policy (400 when `pluginId` is not one of its plugins). " +
    'A GET that changes state, as in the public API.',
  getAppTechFlags:
    'Every tech flag with its value for the application (true unless set otherwise), as a bare JSON map.',
  updateAppTechFlags:
    'Sets the given flags, leaving the others as they are. The body is the map itself or `{"techFlags": {...}}` ' +
    '(stackhawk-mcp). Unknown flags: 400 naming them.',
  registerRepository:
    "This service's own operation (the public API learns repositories from source-control integrations): " +
    'registers a repository, or updates the one with the same `repoSource` and `name` (case-insensitive; its id ' +
    "is derived from them). Fields not given keep their value. `commitCount` is the last 30 days' commits, as " +
    'the caller counts them. Mapped applications are kept. `openApiSpecs` (when given, the complete list) names ' +
    'uploaded descriptions of the organization (`oasId`, 400 for any the caller cannot see) and the path in the ' +
    'repository each describes: listed by List OAS Assets and counted in `openApiSpecInfo`.',
  listRepositories:
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
  createAppsForRepos:
    "Creates the applications named in `newRepositoryApps[*].appInfos[*].name` (ENV_INCOMPLETE, for the caller's " +
    'first team, as Create Application does; `write:application` is needed as well) and maps each to its ' +
    'repository, all in one transaction (APPLICATION_ADDED per application too). At most 20 applications and 10 ' +
    'repositories per request; 400 names unknown repositories.',
  replaceRepoAppMappings:
    "Replaces the repository's applications with `appInfos[*].id` (other fields are ignored); 400 names ids that " +
    'are not applications of the organization the caller may see. Mappings to applications of teams the caller ' +
    'is not in are kept. A request that changes nothing writes nothing.',
  listRepoSensitiveData: 'Empty: nothing supplies sensitive-data findings yet. 404 for an unknown repository.',
  createApplication:
    'Nothing is required (a name is strongly encouraged); unknown fields are ignored. An `env` creates that ' +
    'environment too (ENVIRONMENT_ADDED; its default scan configuration gets `host`), making the application ' +
    'ACTIVE; without one it is ENV_INCOMPLETE. A caller who belongs to a team creates the application for its ' +
    'team (`teamId` picks one of its teams). The response does not populate `env` and `envId`.',
  getApplication: 'A team-owned application is visible to its team members only (401 for others).',
  updateApplication: 'Only the name changes; other fields are ignored. Team-owned applications: team members only.',
  deleteApplication:
    'Team-owned applications: team members only (401 otherwise). Permanently deletes the application with all its environments, scan results, stored configurations and ' +
    'uploaded API description. The application disappears at once; should the request be interrupted, ' +
    'repeating it finishes the deletion.',
  createEnvironment:
    'Team-owned applications: team members only (401 otherwise). Concurrent creations in one application may ' +
    'answer 409: nothing was created, retry. Environment names are unique per application, case-insensitively (409 otherwise). The new environment ' +
    'gets a default hosted scan configuration naming `host`. Returns the application with `env` and `envId` ' +
    'populated.',
  updateEnvironment:
    'Only the name changes (409 if another environment of the application has it). Team-owned applications: ' +
    'team members only.',
  deleteEnvironment:
    'Team-owned applications: team members only (401 otherwise). Permanently deletes the environment and its scan results; repeating an interrupted request finishes it.',
  listEnvsV2:
    'Environments the caller may see (team membership), sorted by `sortField` (default environmentName) then ' +
    'id. List parameters may be comma-joined or repeated; `page=p_N` and `pageToken=N` select page N.',
  listAppsV2:
    'Applications the caller may see (team membership), sorted by `sortField` (default applicationName) then ' + 'id.',
  listApplications:
    'Deprecated: use List Applications V2. One entry per application-environment (an application without ' +
    'environments appears alone); `ignoreEnvs=true` gives one entry per application. ' +
    v1Paging('empty'),
  listEnvironments: `Deprecated: use List Environments V2. ${v1Paging('empty')}`,
  listAuditActivity:
    "The organization's user-activity entries, oldest first unless `sortDir=desc`; `start`/`end` in ms; " +
    '`timestamp` in ms (400 when `start` is after a non-zero `end`); `payload` a JSON object as a string. ' +
    v1Paging('"-1"'),
  getTeam:
    'The team with its members and applications (each with its environment names). Any member of the ' +
    'organization may call (with `read:team`).',
  updateTeams:
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
  deleteTeam:
    'Deletes the team only: its applications are left without a team (visible to the whole organization) and ' +
    'its members stay in the organization. One atomic write of at most 100 items: any team of up to 93 users ' +
    'and applications together can be deleted; a larger one may have to be made smaller (PUT) first (400 says ' +
    'so).',
  updateApplicationTeam:
    'Makes the team the owner of application `applicationId` (moving it from its previous team, if any). Only ' +
    'members of the team may call (401 otherwise). `teamId` in the body, if sent, must match the path. An ' +
    'application already in the team: 200, nothing written.',
  createTeam:
    'A non-empty `name`, unique in the organization case-insensitively (400 otherwise); optional `userIds` ' +
    '(members of the organization) and `applicationIds` (applications of it; one owned by another team moves ' +
    'to the new team). `organizationId`, if sent, must match the path. The same atomic-write limit as Update ' +
    'Team applies.',
  listTeamsForOrgAndUser:
    "The caller's teams in the organization, by name. Only the caller's own id may be given as `userId` (401 " +
    `otherwise). ${v1Paging('empty')}`,
  listTeamsForOrg:
    "The organization's teams, by name (then id); any member of the organization may call. `search` keeps the " +
    'teams whose name contains it, case-insensitively, `*` standing for any characters (at most ' +
    `${MAX_PATTERN_LENGTH} characters, matched in linear time). ${v1Paging('empty')}`,
  reportScanStarted:
    'The scanner announces a scan of environment `env` (created, with ENVIRONMENT_ADDED, when the application ' +
    'has no environment of that name). `config` is the scan configuration YAML: 400 when it is not valid YAML ' +
    `or not a HawkScan configuration object; at most ${SCAN_CONFIG_LIMITS.maxBytes} characters with ${documentLimits(SCAN_CONFIG_LIMITS)} ` +
    `(413/400 naming the limit; the whole body at most ${MiB(SCAN_START_BODY_BYTES)}). The caller's access to the application is ` +
    'checked before the body is parsed. Concurrent starts creating environments may answer 409: retry. It is stored under its `configHash` (hex SHA-256 of the text). ' +
    "The scan is STARTED and becomes the environment's last scan. Team-owned applications: team members only.",
  importScanReport:
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
  reportScanAlerts:
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
  reportScanCompleted:
    'Ends a STARTED scan with `status` COMPLETED (audit SCAN_COMPLETED) or ERROR (SCAN_ERRORED): its ' +
    "duration, final statistics and the environment's last-scan fields are set. 400 if the scan already " +
    'ended. Returns the scan result.',
  listScans:
    "The organization's scans the caller may see (team membership), newest first unless `sortField` is `id` " +
    '(scan id) or `name` (application name, then environment name). `start`/`end` bound the start time (ms; ' +
    `400 when \`start\` is after a non-zero \`end\`). \`tag\` filters are at most ${MAX_PATTERN_LENGTH} characters, matched in linear time. ` +
    '`timestamp` fields are in ms. `applicationAlerts` is always empty here. ' +
    v1Paging('empty'),
  deleteScan:
    "Permanently deletes the scan with its findings and messages. When it was its environment's last scan, " +
    "the environment's last-scan fields then describe the previous scan (or are empty).",
  listScanAlerts:
    'One `applicationScanResults` entry: the scan with a page of its alerts (by pluginId, or by name with ' +
    '`sortField=name`). `totalCount` counts the alerts.',
  listScanAlertFindings:
    'The alert and a page of the URIs that triggered it, in the order reported. `pageSize` is at most 100 ' +
    '(larger values are reduced). Each URI carries its `findingHash` (stable across scans of the environment: ' +
    "plugin, method, normalized path and parameter; docs/DATA-MODEL.md, Findings) and its finding's current " +
    'triage: `status` (UNKNOWN = untriaged), `matchedRuleNote`, `matchedRuleUserId`, `matchedRuleLastUpdated` (ms), ' +
    '`ruleHistories` (newest first).',
  getScanSarif:
    "The scan's findings as a SARIF 2.1.0 log for GitHub code scanning (docs/SARIF-EXPORT.md): one result per " +
    'finding, `partialFingerprints` holding its `findingHash`, false positives and accepted risks as `suppressions` ' +
    'with their note, rules with the plugin, CWE, help and references, `automationDetails.id` `<applicationId>/<environment>`. ' +
    "Each result is placed on its operation's line in the application's hosted OpenAPI description (`oasPath`: its " +
    'path in the repository) when the request matches one, else on the scan configuration (`configPath`, default ' +
    "stackhawk.yml) with the URL as a logical location. A log that exceeds GitHub's limits (25,000 results, 10 MB " +
    "gzipped) or a response's (4 MiB gzipped when the client accepts gzip, else 5 MiB) is split into parts, most " +
    "severe findings first: `part` chooses one (404 past the last); `X-Sarif-Parts` and the run's properties say how " +
    'many there are. `hawk-scanner sarif` writes every part.',
  bulkTriageFindings:
    'Triages findings of one environment by `findingHash`: `FALSE_POSITIVE`, `RISK_ACCEPTED`, or `ADD_COMMENT` ' +
    "(sets the note; keeps a triaged finding's status, shows an untriaged one as ADD_COMMENT, still untriaged). " +
    'At most 100 actions, applied in request order, each atomically with its ALERT_RULE_TRIAGED entry; a hash the ' +
    'environment never saw fails alone (`success: false`, `error`), the others still apply. The rule applies to ' +
    "the finding in the environment's last scan (its figures, the environment's untriaged counts and health " +
    'change at once) and in every later scan. Body ids, when given, must match the path. A `RISK_ACCEPTED` action ' +
    "may carry `expiresAt` (ISO 8601): in the future and within the organization's maximum (getSlaPolicy), else " +
    "400 and nothing changes; without it the organization's default applies. At its expiry the finding is " +
    'untriaged again (docs/GOVERNANCE.md).',
  listMembers:
    "The organization's members as users (`external.organizations` holds this organization with the member's " +
    'role, `external.teams` their teams in it). `pattern`: a case-insensitive part of the full name or e-mail ' +
    '(plain text, no wildcards); `roles`: OWNER, ADMIN, MEMBER; sorted by user id (`sortField=id`).',
  listOrganizationFindings:
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
    '`riskAcceptedUntil`.',
  upsertAlertRule:
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
  getAlertMessages:
    "The request and response behind one finding (`messageId` = the alert URI's `msgId`). " +
    '`includeValidationCommand=true` adds a curl command reproducing the request.',
  getConfig:
    'The scan configuration a scan of the application reported, parsed. 404 when no scan of the application ' +
    'uses this hash.',
  createWebhook:
    'Subscribes a receiver URL to events of the organization (`scanStarted`, `scanCompleted`, `scanErrored`, ' +
    "`findingStatusChanged`, `riskAcceptanceExpired`, `findingOverdue`), optionally only for some applications (`applicationIds`) or a team's applications " +
    '(`teamId`), as signed JSON (`format: json`, the default) or as Slack or Teams messages. The answer holds the ' +
    'signing secret, shown only here. Each delivery is a POST with `X-Hawk-Event` and `X-Hawk-Signature: ' +
    't=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (docs/WEBHOOKS.md). The URL is checked when ' +
    'saved and at every delivery: 400 when it resolves to a link-local or metadata address, or to a private or ' +
    'loopback one while the organization does not allow private receivers. At most 25 webhooks per organization.',
  listWebhooks: "The organization's webhook subscriptions, oldest first, without secrets.",
  getWebhook: 'One webhook subscription, without its secret.',
  updateWebhook:
    'Changes the fields given (`applicationIds`/`teamId`/`customHeader` null: cleared). `rotateSecret: true` makes a ' +
    'new signing secret, in this answer only; the old one stops signing at once.',
  deleteWebhook: 'Removes the subscription; deliveries still queued for it are dropped.',
  listWebhookDeliveries:
    'The 50 newest deliveries to the subscription: the event, its status (`PENDING`, `RETRYING`, `DELIVERED`, ' +
    '`DEAD` after the last attempt or a refused address, `DROPPED` when the subscription was disabled) and each ' +
    "attempt's time, HTTP status, latency, error, the first 512 characters of the receiver's answer and the wait it " +
    'asked for with `Retry-After` (`retryAfterMs`, which the next attempt honours); `test` marks a testWebhook ' +
    'delivery and `redeliveryOf` names the delivery a redelivery sends again.',
  testWebhook:
    'Sends the subscription a test event (`X-Hawk-Event: ping`; for Slack and Teams a short message) through the ' +
    'same path as real events: a delivery in its log, the delivery queue, the signature, the receiver check. Works ' +
    'while the subscription is disabled. Waits for the first attempt, at most the delivery timeout plus 2 s (12 s at most), and answers the delivery: ' +
    "`DELIVERED` or `RETRYING`/`DEAD` with the attempt's HTTP status, latency, error and the start of the receiver's " +
    'answer; `PENDING` with no attempt when it is still under way (the delivery log shows how it ends). Audited as ' +
    'INTEGRATION_MODIFIED (`action: test`).',
  redeliverWebhookDelivery:
    'Sends a delivery again as a new delivery (a new `X-Hawk-Delivery` id, the same `X-Hawk-Event-Id` and body, so a ' +
    'receiver can tell it already handled the event), queued at once with a full set of attempts; its `redeliveryOf` ' +
    'names the original. Only a delivery that is over (`DELIVERED`, `DEAD`, `DROPPED`) among the 50 the log shows: ' +
    '409 while it is `PENDING` or `RETRYING`, or while the subscription is disabled (except a test delivery); 404 for ' +
    "an unknown id or another organization's. Audited as INTEGRATION_MODIFIED (`action: redeliver`).",
  createTracker:
    'Connects a Jira Cloud (`kind: jira`: `baseUrl` the site, `project`, `issueType`, `email` and an API token), Jira ' +
    'Server / Data Center (`jiraServer`: a personal access token) or GitHub (`github`: `repository` owner/name, ' +
    '`baseUrl` the API, api.github.com by default) issue tracker that findings are promoted to (docs/TRACKERS.md). ' +
    'The token is stored sealed and never shown again. `autoPromote: {minSeverity, environmentIds}` promotes every ' +
    'new finding at or above a severity; `closeAfterScans` (default 1) closes a ticket after that many completed ' +
    'scans without its finding. The base URL is checked as webhook URLs are: 400 for link-local or metadata ' +
    'addresses, and for private or loopback ones unless the organization allows private networks. At most 10 per ' +
    'organization.',
  listTrackers: "The organization's tracker connections, oldest first, without tokens.",
  getTracker: 'One tracker connection, without its token.',
  updateTracker:
    'Changes the fields given (not `kind`; `autoPromote: null` turns automatic promotion off); `token` replaces the ' +
    'stored token.',
  deleteTracker: 'Removes the connection; work still queued for it is dropped, its tickets stay.',
  getSsoProvider:
    'The organization\'s OpenID Connect provider (docs/IDENTITY.md "Single sign-on"), without its client secret ' +
    '(`clientSecretSet` says one is stored); `configured: false` when there is none.',
  updateSsoProvider:
    "Sets the organization's OpenID Connect provider: `issuer`, `clientId`, `clientSecret` (required the first time " +
    "and when the issuer or client changes; stored sealed, never shown), `redirectUri` (the dashboard's " +
    '`/sso/callback`, registered at the provider), `scopes` (default openid email profile), `groupsClaim` (default ' +
    '`groups`), `allowedEmailDomains`, `defaultRole`, `groupRoles` and `groupTeams` (the groups claim mapped to roles ' +
    'and teams), `enabled`. The issuer is discovered first: 400 when it cannot be, or when it resolves to an address ' +
    'the organization does not allow (private and loopback ones only with `allowPrivateNetworks`).',
  deleteSsoProvider:
    "Removes the organization's provider: sign-in with it stops, and the sessions it started end at their next " +
    'refresh.',
  startSsoSignIn:
    "Starts the authorization code flow with PKCE: answers the provider's `authorizationUrl` and a `binding` that " +
    'the browser tab keeps and sends with the callback. State, nonce and code verifier stay on the server for ten ' +
    'minutes. 404 when the organization has no enabled provider.',
  completeSsoSignIn:
    "Finishes sign-in: `query` is the callback's query string as the provider sent it, `binding` what the start " +
    'answered. The sign-in is used once; the code is redeemed and the ID token checked (issuer, audience, expiry, ' +
    'nonce) by openid-client. The user is provisioned (a new member writes `USER_JOINED_ORG`, a changed role or teams ' +
    "`USER_MODIFIED`) and the answer is an access token as login's, refreshed with refreshToken for up to 12 hours. " +
    'Any refusal is a 401 saying why.',
  signOut:
    'Ends the session: one started by single sign-on can no longer be refreshed and its tokens are refused at once. ' +
    'A session of an API key has nothing to end on the server (revoke the key for that).',
  getIntegrationSettings: "The organization's integration settings.",
  updateIntegrationSettings:
    '`allowPrivateNetworks`: whether receivers may be on private, loopback or shared (CGNAT) addresses. Link-local ' +
    'and metadata addresses are never allowed. Only an owner or administrator of the organization may change it (403).',
  getSlaPolicy:
    "The organization's SLA policy (docs/GOVERNANCE.md): days to fix a High, Medium and Low finding, counted from " +
    'its first sighting, and the default and maximum length of a risk acceptance (0: none). `configured: false` ' +
    'while the organization has not set one (30, 90 and 180 days apply).',
  updateSlaPolicy:
    'Sets the whole policy: `{"days": {"High": n, "Medium": n, "Low": n}, "riskAcceptance": {"defaultDays": n, ' +
    '"maxDays": n}}` (1 to 3650 days; `riskAcceptance` and its fields optional, null: none). The findings report ' +
    "shows each finding's due date from it; a `RISK_ACCEPTED` triage without `expiresAt` then expires after " +
    '`defaultDays` (or `maxDays`), and one beyond `maxDays` is refused.',
  getApplicationSla:
    'The days to fix a finding in the application and in each of its environments (docs/GOVERNANCE.md, Overrides): ' +
    'the overrides set (`override`, 0 where a severity is inherited) and the days that apply (`days`): the ' +
    "environment's, else the application's, else the organization's, severity by severity.",
  updateApplicationSla:
    '`{"days": {"High": n}}`: the severities named (1 to 3650 days) override the organization\'s days for this ' +
    "application's findings; the others are inherited. Replaces the application's previous override.",
  deleteApplicationSla:
    "The application's findings follow the organization's days again (404 when it has no override).",
  updateEnvironmentSla:
    '`{"days": {"Low": n}}`: the severities named override the application\'s (or else the organization\'s) days for ' +
    "this environment's findings. Replaces the environment's previous override; deleting the environment deletes it.",
  deleteEnvironmentSla: "The environment's findings follow the application's days again (404 when it has no override).",
  getOrganizationTrends:
    "Daily figures of the organization's findings over the last `days` days (UTC, 1 to 365, default 30; " +
    'docs/GOVERNANCE.md, Trends): open findings per severity at the end of each day (current and not a false ' +
    "positive or accepted risk), new, fixed and reopened findings that day, the fixes' summed time since first " +
    'sighting and how many met their due date, and the environments scanned within 7 and 30 days. Kept as the ' +
    "writes happen: a request reads at most `days` + 30 small items, whatever the organization's size.",
  getApplicationTrends:
    "The same daily figures for one application's environments (docs/GOVERNANCE.md, Trends). 404 for an " +
    'application of another organization.',
  getEnvironmentTrends: 'The same daily figures for one environment (docs/GOVERNANCE.md, Trends).',
  getScanSla:
    "The scan's findings that are past their due date now (docs/GOVERNANCE.md: the days of the SLA policy and overrides from " +
    "each finding's first sighting, stopped while a false positive or accepted risk): their count, by severity, and " +
    'the 100 most overdue. `hawk-scanner import --fail-on overdue` asks it after an import.',
  getOrganizationOverview:
    "What the dashboard's overview shows beside the trends (docs/GOVERNANCE.md, The overview): the applications with " +
    'the most untriaged findings, the most overdue findings of the environments with the most untriaged findings, ' +
    'and the environments not scanned within 7 or 30 days. Team rules apply. Each part is a bounded walk of an ' +
    "environment index: the cost is the same whatever the organization's size.",
};
