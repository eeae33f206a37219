// Every DynamoDB key of the single table is built here, and only here. docs/DATA-MODEL.md lists the access
// patterns these keys serve. Sort keys starting with '#' mark an entity's own record inside its partition.
const ASSET_PREFIX = { configuration: 'SCANCONFIG#', policy: 'POLICY#' } as const;

export const keys = {
  organization: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: '#ORG' }),

  user: (userId: string) => ({ pk: `USER#${userId}`, sk: '#USER' }),
  /** Claims an e-mail address so that two users cannot share one. */
  userEmail: (email: string) => ({ pk: `EMAIL#${email.toLowerCase()}`, sk: '#EMAIL' }),

  /** A user's membership of an organization; gsi1 lists a user's organizations. */
  membership: (orgId: string, userId: string) => ({
    pk: `ORG#${orgId}`,
    sk: `MEMBER#${userId}`,
    gsi1pk: `USER#${userId}`,
    gsi1sk: `ORG#${orgId}`,
  }),
  membershipsOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'MEMBER#' }),
  membershipsOfUser: (userId: string) => ({ gsi1pk: `USER#${userId}`, gsi1skPrefix: 'ORG#' }),

  /** An API key, addressed by the hash of its secret (login reads it in one GetItem); gsi1 lists a user's keys. */
  apiKey: (secretHash: string, userId: string, keyId: string) => ({
    pk: `APIKEY#${secretHash}`,
    sk: '#APIKEY',
    gsi1pk: `USER#${userId}`,
    gsi1sk: `APIKEY#${keyId}`,
  }),
  apiKeyBySecretHash: (secretHash: string) => ({ pk: `APIKEY#${secretHash}`, sk: '#APIKEY' }),
  apiKeysOfUser: (userId: string) => ({ gsi1pk: `USER#${userId}`, gsi1skPrefix: 'APIKEY#' }),

  // ---- Applications and environments (docs/DATA-MODEL.md). Everything an application owns lives in its
  // partition `APP#<appId>`, so a cascade delete is one partition walk.
  /** An application's own record. */
  application: (appId: string) => ({ pk: `APP#${appId}`, sk: '#APP' }),
  /** The whole partition of an application: its record, environments, name claims and scan data. */
  applicationPartition: (appId: string) => ({ pk: `APP#${appId}` }),
  /** gsi2 entry of a live application: the organization's applications by lower-cased name, then id. */
  applicationByName: (orgId: string, name: string, appId: string) => ({
    gsi2pk: `ORGAPPS#${orgId}`,
    gsi2sk: `${name.toLowerCase()}#${appId}`,
  }),
  applicationsOfOrg: (orgId: string) => ({ gsi2pk: `ORGAPPS#${orgId}` }),

  environment: (appId: string, envId: string) => ({ pk: `APP#${appId}`, sk: `ENV#${envId}` }),
  environmentsOfApp: (appId: string) => ({ pk: `APP#${appId}`, skPrefix: 'ENV#' }),
  /** Scan data of an environment (scan-results issue) lives under this prefix, so deleting the environment finds it. */
  environmentData: (appId: string, envId: string) => ({ pk: `APP#${appId}`, skPrefix: `ENVDATA#${envId}#` }),
  /** Claims an environment name inside its application (names are unique per application, case-insensitively). */
  environmentName: (appId: string, name: string) => ({ pk: `APP#${appId}`, sk: `ENVNAME#${name.toLowerCase()}` }),
  /**
   * Index entries of a live environment: gsi2 = the organization's environments by name, gsi3 = by last scan time,
   * gsi1 = by last-scan status, then by name. Removed when a delete starts, so lists stop reading the environment.
   */
  environmentIndexes: (orgId: string, envId: string, name: string, lastScanTimestamp: number, lastScanStatus: string) => ({
    gsi1pk: `ORGENVSTATUS#${orgId}#${lastScanStatus}`,
    gsi1sk: `${name.toLowerCase()}#${envId}`,
    gsi2pk: `ORGENVS#${orgId}`,
    gsi2sk: `${name.toLowerCase()}#${envId}`,
    gsi3pk: `ORGENVSCANS#${orgId}`,
    gsi3sk: `${String(lastScanTimestamp).padStart(15, '0')}#${envId}`,
  }),
  environmentsOfOrgByName: (orgId: string) => ({ gsi2pk: `ORGENVS#${orgId}` }),
  environmentsOfOrgNamed: (orgId: string, name: string) => ({ gsi2pk: `ORGENVS#${orgId}`, gsi2skPrefix: `${name.toLowerCase()}#` }),
  environmentsOfOrgByScanDate: (orgId: string) => ({ gsi3pk: `ORGENVSCANS#${orgId}` }),
  environmentsOfOrgWithStatus: (orgId: string, lastScanStatus: string) => ({ gsi1pk: `ORGENVSTATUS#${orgId}#${lastScanStatus}` }),

  /**
   * Live application and environment counts of an organization per (application type, owning team or '-'):
   * the totalCount of unfiltered list pages without reading the whole organization.
   */
  organizationCounter: (orgId: string, applicationType: string, teamId: string | undefined) => ({
    pk: `ORG#${orgId}`,
    sk: `COUNT#${applicationType}#${teamId ?? '-'}`,
  }),

  // ---- Teams (docs/DATA-MODEL.md, Teams). A team lives in its organization's partition, so a team of another
  // organization is simply not found. Its members' memberships (`teamIds`) and its applications (`teamId`) carry
  // copies of the relation, changed in the same transaction as the team item.
  /** A team's own record: name, member and application ids, and the version every team write is conditioned on. */
  team: (orgId: string, teamId: string) => ({ pk: `ORG#${orgId}`, sk: `TEAM#${teamId}` }),
  teamsOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'TEAM#' }),
  /** Claims a team name inside its organization (names are unique per organization, case-insensitively). */
  teamName: (orgId: string, name: string) => ({ pk: `ORG#${orgId}`, sk: `TEAMNAME#${name.toLowerCase()}` }),

  // ---- Named documents of an organization (docs/DATA-MODEL.md, Organization scan configurations and policies):
  // the metadata of each in its organization's partition, the text in S3 (`objectKey`). Names are case-sensitive.
  organizationAsset: (orgId: string, kind: 'configuration' | 'policy', name: string) => ({ pk: `ORG#${orgId}`, sk: `${ASSET_PREFIX[kind]}${name}` }),
  organizationAssetsOfOrg: (orgId: string, kind: 'configuration' | 'policy') => ({ pk: `ORG#${orgId}`, skPrefix: ASSET_PREFIX[kind] }),

  // ---- Source-code repositories an organization registers (docs/DATA-MODEL.md, Repositories): in its partition,
  // each with the ids of the applications mapped to it.
  codeRepository: (orgId: string, repoId: string) => ({ pk: `ORG#${orgId}`, sk: `REPO#${repoId}` }),
  codeRepositoriesOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'REPO#' }),

  /** User-activity (audit) entries of an organization, in time order (the audit list reads ranges of it). */
  auditEntry: (orgId: string, timestamp: number, auditId: string) => ({
    pk: `AUDIT#${orgId}`,
    sk: `${String(timestamp).padStart(15, '0')}#${auditId}`,
  }),
  auditEntriesOfOrg: (orgId: string) => ({ pk: `AUDIT#${orgId}` }),
  /** Sort-key bound of the audit entries at `timestamp` (ms): entries from it sort after, before it before. */
  auditTimeBound: (timestamp: number) => String(timestamp).padStart(15, '0'),

  // ---- Hosted API descriptions (docs/HOSTED-ASSETS.md). Both items live in the application's partition, so the
  // application's cascade delete removes them with it.
  /** The uploaded description's metadata (which S3 version is current); gsi1 lists an organization's descriptions. */
  hostedDescription: (appId: string, orgId: string) => ({
    pk: `APP#${appId}`,
    sk: '#OAS',
    gsi1pk: `ORG#${orgId}`,
    gsi1sk: `OAS#${appId}`,
  }),
  hostedDescriptionOfApp: (appId: string) => ({ pk: `APP#${appId}`, sk: '#OAS' }),
  hostedDescriptionsOfOrg: (orgId: string) => ({ gsi1pk: `ORG#${orgId}`, gsi1skPrefix: 'OAS#' }),
  /** An application's scan policy (plugins and tech flags); in its partition, so the application's delete removes it. */
  applicationPolicy: (appId: string) => ({ pk: `APP#${appId}`, sk: '#POLICY' }),
  /** The repository-sourced descriptions mapped to (included in) an application. */
  oasMapping: (appId: string) => ({ pk: `APP#${appId}`, sk: '#OASMAPPING' }),

  // ---- Scans (docs/DATA-MODEL.md, Scans). Everything of a scan lives under its environment's data prefix
  // `ENVDATA#<envId>#` in the application's partition, so environment and application deletes remove it; the one
  // item outside it, the scan-id lookup, is named by the scan record's `ownedKey` and removed with it.
  /** A scan's record; gsi1 = its environment's scans by start time, gsi3 = its organization's scans by start time. */
  scan: (orgId: string, appId: string, envId: string, scanId: string, startedAt: number) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#SCAN#${scanId}`,
    gsi1pk: `ENVSCANS#${envId}`,
    gsi1sk: `${String(startedAt).padStart(15, '0')}#${scanId}`,
    gsi3pk: `ORGSCANS#${orgId}`,
    gsi3sk: `${String(startedAt).padStart(15, '0')}#${scanId}`,
  }),
  scanRecord: (appId: string, envId: string, scanId: string) => ({ pk: `APP#${appId}`, sk: `ENVDATA#${envId}#SCAN#${scanId}` }),
  /** Where a scan is, by its id alone (the /scan/{scanId} routes): written in the transaction that starts the scan. */
  scanLocation: (scanId: string) => ({ pk: `SCAN#${scanId}`, sk: '#SCAN' }),
  scansOfEnvironment: (envId: string) => ({ gsi1pk: `ENVSCANS#${envId}` }),
  /** Sort-key bound of an environment's scans started at or before `to` (ms). */
  scansStartedBy: (to: number) => `${String(to).padStart(15, '0')}#~`,
  /** The organization's scans started from `from` to `to` (ms, inclusive). */
  scansOfOrgBetween: (orgId: string, from: number, to: number) => ({
    gsi3pk: `ORGSCANS#${orgId}`,
    gsi3skFrom: String(from).padStart(15, '0'),
    gsi3skTo: `${String(to).padStart(15, '0')}#~`,
  }),
  /** Everything a scan owns (alerts, URIs, messages), not its record. */
  dataOfScan: (appId: string, envId: string, scanId: string) => ({ pk: `APP#${appId}`, skPrefix: `ENVDATA#${envId}#SCAN#${scanId}#` }),
  /** One alert (plugin) of a scan: metadata and its URI counters. */
  scanAlert: (appId: string, envId: string, scanId: string, pluginId: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#SCAN#${scanId}#ALERT#${pluginId}`,
  }),
  /**
   * A scan's alerts as a sort-key range rather than a prefix: plugin ids sort below '~', and DynamoDB Local serves
   * ranges several times faster than begins_with in a partition that also holds the scan's many URIs.
   */
  alertsOfScan: (appId: string, envId: string, scanId: string) => ({
    pk: `APP#${appId}`,
    skFrom: `ENVDATA#${envId}#SCAN#${scanId}#ALERT#`,
    skTo: `ENVDATA#${envId}#SCAN#${scanId}#ALERT#~`,
  }),
  /** The n-th URI reported for an alert (n from the alert's atomic counter): pages are sort-key ranges. */
  alertUri: (appId: string, envId: string, scanId: string, pluginId: string, n: number) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#SCAN#${scanId}#URI#${pluginId}#${String(n).padStart(9, '0')}`,
  }),
  /** The request/response of one finding, addressed by its msgId. */
  alertMessage: (appId: string, envId: string, scanId: string, msgId: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#SCAN#${scanId}#MSG#${msgId}`,
  }),
  /** All URIs of a scan, every alert's (a sort-key range: plugin ids sort below '~'). */
  urisOfScan: (appId: string, envId: string, scanId: string) => ({
    pk: `APP#${appId}`,
    skFrom: `ENVDATA#${envId}#SCAN#${scanId}#URI#`,
    skTo: `ENVDATA#${envId}#SCAN#${scanId}#URI#~`,
  }),

  // ---- Findings and their triage (docs/DATA-MODEL.md, Findings). Per environment, under its data prefix, so the
  // environment and application cascades remove them.
  /** A finding of the environment by its hash: identity, first and last seen, its URIs in the last scan seen. */
  finding: (appId: string, envId: string, findingHash: string) => ({ pk: `APP#${appId}`, sk: `ENVDATA#${envId}#FINDING#${findingHash}` }),
  findingsOfEnvironment: (appId: string, envId: string) => ({ pk: `APP#${appId}`, skPrefix: `ENVDATA#${envId}#FINDING#` }),
  /** The triage rule of a finding (status, note, history): applies to the finding in every scan of the environment. */
  triageRule: (appId: string, envId: string, findingHash: string) => ({ pk: `APP#${appId}`, sk: `ENVDATA#${envId}#RULE#${findingHash}` }),
  /** Counts the environment's triage changes: a scan's completion is conditioned on it, so it never freezes
   * statistics from rules that changed while it computed them. */
  triageVersion: (appId: string, envId: string) => ({ pk: `APP#${appId}`, sk: `ENVDATA#${envId}#TRIAGEVERSION` }),
  triageRulesOfEnvironment: (appId: string, envId: string) => ({ pk: `APP#${appId}`, skPrefix: `ENVDATA#${envId}#RULE#` }),
  /** Marks a configuration hash as used by `scans` scans of the environment (GET .../config/{configHash}). */
  scanConfigUse: (appId: string, envId: string, configHash: string) => ({ pk: `APP#${appId}`, sk: `ENVDATA#${envId}#CONFIG#${configHash}` }),
};

/** Keys of the rate-limit table: one sliding-window record per subject. */
export const rateLimitKeys = {
  user: (userId: string) => ({ pk: `user#${userId}` }),
  loginKey: (secretHash: string) => ({ pk: `login-key#${secretHash}` }),
  loginSource: (sourceIp: string) => ({ pk: `login-ip#${sourceIp}` }),
};
