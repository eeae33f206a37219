// Every DynamoDB key of the single table is built here, and only here. docs/DATA-MODEL.md lists the access
// patterns these keys serve. Sort keys starting with '#' mark an entity's own record inside its partition.
import { nameOrderKey, namePrefix, numberOrderBound, numberOrderKey, sortableNumber } from './sortable.ts';

const ASSET_PREFIX = { configuration: 'SCANCONFIG#', policy: 'POLICY#' } as const;

const environmentFindingsSortKey = (envId: string, total: number | undefined) => numberOrderKey(total, envId);

/**
 * Names with at most this many distinct trigrams (about 32 characters) are indexed by trigram; longer ones are
 * "unindexed": one entry that every `query` of three characters or more reads. It bounds the items a create,
 * rename or delete adds to its transaction (at most 31 posting items per name, with the entity item carrying the
 * first trigram).
 */
export const MAX_NAME_TRIGRAMS = 32;
/** The gram of the unindexed names' partition ('~' is no trigram of a lower-cased name: it sorts apart). */
const UNINDEXED = '~unindexed';

/** The distinct trigrams of a lower-cased text, in order of first occurrence (by code point). */
export function trigrams(text: string): string[] {
  const chars = Array.from(text.toLowerCase());
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(''));
  return [...grams];
}

/** What a trend figure is about: an organization, one of its applications, or one environment of it. */
export type TrendScopeRef = { orgId: string; appId?: string; envId?: string };
const trendPartition = (scope: TrendScopeRef) => (scope.appId ? `APP#${scope.appId}` : `ORG#${scope.orgId}`);
const trendPrefix = (scope: TrendScopeRef) => (scope.envId ? `ENVDATA#${scope.envId}#TREND#` : 'TREND#');

type NameKind = 'APP' | 'ENV';
const nameGramPartition = (orgId: string, kind: NameKind, gram: string) => `ORGNAMEGRAM#${orgId}#${kind}#${gram}`;

/**
 * The trigram index of an application's or environment's name (gsi7, KEYS + applicationId, environmentId, name):
 * an entry per distinct trigram of the lower-cased name, in partition `ORGNAMEGRAM#<org>#<APP|ENV>#<trigram>` with
 * the owner's id as sort key, so that `query` reads only the names sharing a trigram with it. The entity item itself
 * carries the first trigram's entry (`entity`); the others are posting items in the application's partition
 * (`postings`, deleted with it by the cascade). A name with more than MAX_NAME_TRIGRAMS trigrams, or written
 * `indexed: false` (bulk creations, which have no room in their transaction), has only the entity's entry, in the
 * unindexed partition; a name of fewer than three characters has none (no query of three or more can match it).
 * `nameTrigrams` on the entity records which case applies, so renames and deletes remove exactly the postings.
 */
function nameIndex(
  orgId: string,
  kind: NameKind,
  appId: string,
  ownerId: string,
  name: string,
  indexed = true,
): { entity: Record<string, string>; postings: Record<string, string>[]; nameTrigrams: boolean } {
  const grams = trigrams(name);
  if (grams.length === 0) return { entity: {}, postings: [], nameTrigrams: false };
  if (!indexed || grams.length > MAX_NAME_TRIGRAMS) {
    return {
      entity: { gsi7pk: nameGramPartition(orgId, kind, UNINDEXED), gsi7sk: ownerId },
      postings: [],
      nameTrigrams: false,
    };
  }
  return {
    entity: { gsi7pk: nameGramPartition(orgId, kind, grams[0]), gsi7sk: ownerId },
    postings: grams.slice(1).map((gram) => ({
      ...nameGramPosting(appId, ownerId, gram),
      gsi7pk: nameGramPartition(orgId, kind, gram),
      gsi7sk: ownerId,
    })),
    nameTrigrams: true,
  };
}
/** The table key of the posting item of `gram` for an owner (application or environment id). */
const nameGramPosting = (appId: string, ownerId: string, gram: string) => ({
  pk: `APP#${appId}`,
  sk: `NAMEGRAM#${ownerId}#${gram}`,
});

/** Partitions the outbox is spread over (a partition takes about 1,000 writes per second on AWS). */
export const OUTBOX_SHARDS = 4;
const outboxShard = (eventId: string) => parseInt(eventId.slice(0, 2), 16) % OUTBOX_SHARDS;

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

  /**
   * An invitation to an organization (docs/IDENTITY.md "Invitations"), addressed by its id, the first part of its
   * token (acceptance reads it in one GetItem); gsi1 lists an organization's invitations, oldest first.
   */
  invitation: (invitationId: string, orgId: string, createdAt: number) => ({
    pk: `INVITE#${invitationId}`,
    sk: '#INVITE',
    gsi1pk: `ORGINVITES#${orgId}`,
    gsi1sk: numberOrderKey(createdAt, invitationId),
  }),
  invitationById: (invitationId: string) => ({ pk: `INVITE#${invitationId}`, sk: '#INVITE' }),
  invitationsOfOrg: (orgId: string) => ({ gsi1pk: `ORGINVITES#${orgId}` }),

  // ---- Applications and environments (docs/DATA-MODEL.md). Everything an application owns lives in its
  // partition `APP#<appId>`, so a cascade delete is one partition walk.
  /** An application's own record. */
  application: (appId: string) => ({ pk: `APP#${appId}`, sk: '#APP' }),
  /** The whole partition of an application: its record, environments, name claims and scan data. */
  applicationPartition: (appId: string) => ({ pk: `APP#${appId}` }),
  /**
   * Compact list entries of a live application, partitioned by (type, owning team or '-') like the organization
   * counters, so that a list reads only the partitions its caller may see: gsi4 = by lower-cased name, then id;
   * gsi6 = by id; gsi1 = by status, then id. Ownership changes move them with the `teamId` write (one item).
   */
  applicationListEntries: (
    orgId: string,
    applicationType: string,
    teamId: string | undefined,
    name: string,
    appId: string,
    status: string,
  ) => ({
    gsi1pk: `ORGAPPSTATUS#${orgId}#${applicationType}#${teamId ?? '-'}`,
    gsi1sk: `${status}#${appId}`,
    gsi4pk: `ORGAPPNAMES#${orgId}#${applicationType}#${teamId ?? '-'}`,
    gsi4sk: nameOrderKey(name, appId),
    gsi6pk: `ORGAPPIDS#${orgId}#${applicationType}#${teamId ?? '-'}`,
    gsi6sk: appId,
  }),
  applicationsOfBucketByName: (orgId: string, applicationType: string, teamId: string | undefined) => ({
    gsi4pk: `ORGAPPNAMES#${orgId}#${applicationType}#${teamId ?? '-'}`,
  }),
  applicationsOfBucketById: (orgId: string, applicationType: string, teamId: string | undefined) => ({
    gsi6pk: `ORGAPPIDS#${orgId}#${applicationType}#${teamId ?? '-'}`,
  }),
  applicationsOfBucketByStatus: (orgId: string, applicationType: string, teamId: string | undefined) => ({
    gsi1pk: `ORGAPPSTATUS#${orgId}#${applicationType}#${teamId ?? '-'}`,
  }),
  /**
   * gsi5 entry of an application whose cascade delete has started (sparse: usually none): lists that walk
   * environment indexes leave out its environments, whose entries stay until the cascade removes them.
   */
  deletingApplication: (orgId: string, appId: string) => ({ gsi5pk: `ORGAPPSDELETING#${orgId}`, gsi5sk: appId }),
  deletingApplicationsOfOrg: (orgId: string) => ({ gsi5pk: `ORGAPPSDELETING#${orgId}` }),

  /** The trigram index entries of an application's name (nameIndex above). */
  applicationNameIndex: (orgId: string, appId: string, name: string, indexed = true) =>
    nameIndex(orgId, 'APP', appId, appId, name, indexed),
  /** The trigram index entries of an environment's name (nameIndex above). */
  environmentNameIndex: (orgId: string, appId: string, envId: string, name: string, indexed = true) =>
    nameIndex(orgId, 'ENV', appId, envId, name, indexed),
  /** The posting items of a name written with `nameTrigrams` (every trigram but the first, which the entity carries). */
  nameGramPostings: (appId: string, ownerId: string, name: string) =>
    trigrams(name)
      .slice(1)
      .map((gram) => nameGramPosting(appId, ownerId, gram)),
  /** gsi7 partitions of applications' or environments' names containing `gram`, and of the unindexed names. */
  namesWithTrigram: (orgId: string, kind: NameKind, gram: string) => ({ gsi7pk: nameGramPartition(orgId, kind, gram) }),
  unindexedNames: (orgId: string, kind: NameKind) => ({ gsi7pk: nameGramPartition(orgId, kind, UNINDEXED) }),

  environment: (appId: string, envId: string) => ({ pk: `APP#${appId}`, sk: `ENV#${envId}` }),
  environmentsOfApp: (appId: string) => ({ pk: `APP#${appId}`, skPrefix: 'ENV#' }),
  /** Scan data of an environment (scan-results issue) lives under this prefix, so deleting the environment finds it. */
  environmentData: (appId: string, envId: string) => ({ pk: `APP#${appId}`, skPrefix: `ENVDATA#${envId}#` }),
  /** Claims an environment name inside its application (names are unique per application, case-insensitively). */
  environmentName: (appId: string, name: string) => ({ pk: `APP#${appId}`, sk: `ENVNAME#${name.toLowerCase()}` }),
  /**
   * Index entries of a live environment, one per list order: gsi2 = the organization's environments by name,
   * gsi3 = by last scan time, gsi1 = by last-scan status, then by name, gsi4 = by id, gsi5 = by last scan duration,
   * gsi6 = by the last scan's untriaged findings (each then by id). Removed when a delete starts, so lists stop
   * reading the environment.
   */
  environmentIndexes: (
    orgId: string,
    envId: string,
    name: string,
    scan: {
      lastScanTimestamp?: number;
      lastScanStatus: string;
      lastScanDuration?: number;
      lastScanTotalUntriaged?: number;
    },
  ) => ({
    gsi1pk: `ORGENVSTATUS#${orgId}#${scan.lastScanStatus}`,
    gsi1sk: nameOrderKey(name, envId),
    gsi2pk: `ORGENVS#${orgId}`,
    gsi2sk: nameOrderKey(name, envId),
    gsi3pk: `ORGENVSCANS#${orgId}`,
    gsi3sk: numberOrderKey(scan.lastScanTimestamp, envId),
    gsi4pk: `ORGENVIDS#${orgId}`,
    gsi4sk: envId,
    gsi5pk: `ORGENVDURATION#${orgId}`,
    gsi5sk: numberOrderKey(scan.lastScanDuration, envId),
    gsi6pk: `ORGENVFINDINGS#${orgId}`,
    gsi6sk: environmentFindingsSortKey(envId, scan.lastScanTotalUntriaged),
  }),
  environmentsOfOrgByName: (orgId: string) => ({ gsi2pk: `ORGENVS#${orgId}` }),
  environmentsOfOrgById: (orgId: string) => ({ gsi4pk: `ORGENVIDS#${orgId}` }),
  environmentsOfOrgByDuration: (orgId: string) => ({ gsi5pk: `ORGENVDURATION#${orgId}` }),
  environmentsOfOrgByFindings: (orgId: string) => ({ gsi6pk: `ORGENVFINDINGS#${orgId}` }),
  environmentsOfOrgNamed: (orgId: string, name: string) => ({
    gsi2pk: `ORGENVS#${orgId}`,
    gsi2skPrefix: namePrefix(name),
  }),
  environmentsOfOrgByScanDate: (orgId: string) => ({ gsi3pk: `ORGENVSCANS#${orgId}` }),
  /** The organization's environments whose last scan started from `from` to `to` (ms, inclusive). */
  environmentsOfOrgScannedBetween: (orgId: string, from: number, to: number) => ({
    gsi3pk: `ORGENVSCANS#${orgId}`,
    gsi3skFrom: sortableNumber(from),
    gsi3skTo: numberOrderBound(to),
  }),
  environmentsOfOrgWithStatus: (orgId: string, lastScanStatus: string) => ({
    gsi1pk: `ORGENVSTATUS#${orgId}#${lastScanStatus}`,
  }),

  /**
   * Live application and environment counts of an organization per (application type, owning team or '-'):
   * the totalCount of unfiltered list pages without reading the whole organization.
   */
  organizationCounter: (orgId: string, applicationType: string, teamId: string | undefined) => ({
    pk: `ORG#${orgId}`,
    sk: `COUNT#${applicationType}#${teamId ?? '-'}`,
  }),
  organizationCountersOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'COUNT#' }),
  /**
   * Learned fences of one of the organization's ordered list partitions (docs/DATA-MODEL.md, List fences): sort keys
   * at every n-th place of a walk, a cache written by the list that walked it (applications/list-fences.ts).
   */
  listFences: (orgId: string, list: string) => ({ pk: `ORG#${orgId}`, sk: `FENCES#${list}` }),

  // ---- Health aggregates (docs/DATA-MODEL.md, Health aggregates): List Environments V2's includeAppHealthStats
  // without reading the organization's environments. The sums live on the organization counters above.
  /** Applications of a bucket whose newest environment scan started on UTC day `day` (ms / 86,400,000). */
  healthDayCounter: (orgId: string, day: number, applicationType: string, teamId: string | undefined) => ({
    pk: `ORG#${orgId}`,
    sk: `HEALTHDAY#${sortableNumber(day)}#${applicationType}#${teamId ?? '-'}`,
  }),
  /** Every bucket's day counters from `day` on, and the readiness marker (which sorts after every day). */
  healthDaysFrom: (orgId: string, day: number) => ({
    pk: `ORG#${orgId}`,
    skFrom: `HEALTHDAY#${sortableNumber(day)}`,
    skTo: 'HEALTHDAY#~~',
  }),
  // ---- The overview's coverage counters (docs/GOVERNANCE.md, The overview; projections/environment-coverage.ts):
  // the organization's live, counted environments by the UTC day and the hour (ms / 3,600,000) their last scan
  // started, and how many have a last scan at all.
  coverageCounter: (orgId: string, unit: 'DAY' | 'HOUR', n: number) => ({
    pk: `ORG#${orgId}`,
    sk: `COVERAGE#${unit}#${sortableNumber(n)}`,
  }),
  /** The counters of `unit` from `from` to `to` (inclusive). */
  coverageCounters: (orgId: string, unit: 'DAY' | 'HOUR', from: number, to: number) => ({
    pk: `ORG#${orgId}`,
    skFrom: `COVERAGE#${unit}#${sortableNumber(from)}`,
    skTo: `COVERAGE#${unit}#${sortableNumber(to)}`,
  }),
  coverageScanned: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'COVERAGE#SCANNED' }),
  /** Present once every environment of the organization counts in the coverage counters (new ones; npm run migrate). */
  coverageReady: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'COVERAGE#~ready' }),
  /**
   * The overview's copy of the names of the applications it lists (docs/GOVERNANCE.md, The overview;
   * overview/application-names.ts), built at a `version` that a rename or the end of any of the organization's
   * applications moves (applications/projections/overview-names.ts).
   */
  overviewNames: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'OVERVIEW#NAMES' }),
  // ---- The overview's riskiest applications (docs/GOVERNANCE.md, The overview;
  // applications/projections/riskiest-applications.ts): one entry per live application with untriaged findings, by
  // its rank (riskRank), so that the organization's first entries in descending order are its riskiest.
  riskiestApplication: (orgId: string, rank: string) => ({ pk: `RISKIEST#${orgId}`, sk: `R#${rank}` }),
  /** The entries of the organization: in descending order, the readiness marker first, then the riskiest. */
  riskiestApplications: (orgId: string) => ({ pk: `RISKIEST#${orgId}` }),
  /** Present once every application of the organization has its entry (new organizations; npm run migrate). */
  riskiestReady: (orgId: string) => ({ pk: `RISKIEST#${orgId}`, sk: '~ready' }),
  /** Present once every application of the organization counts in its aggregates (new organizations; npm run migrate). */
  healthReady: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: 'HEALTHDAY#~ready' }),
  // ---- Trends (docs/GOVERNANCE.md, Trends; docs/DATA-MODEL.md, Trends): per (scope, UTC day) counters and a
  // running total per scope. An organization's in its partition, an application's and an environment's in the
  // application's partition (the environment's under its data prefix), so the deletes' cascades remove them.
  /** Day `day` (ms / 86,400,000) of a scope's trend figures. */
  trendDay: (scope: TrendScopeRef, day: number) => ({
    pk: trendPartition(scope),
    sk: `${trendPrefix(scope)}${sortableNumber(day)}`,
  }),
  /** The scope's running total of every figure (sorts after its days). */
  trendTotal: (scope: TrendScopeRef) => ({ pk: trendPartition(scope), sk: `${trendPrefix(scope)}~` }),
  /** The scope's days from `day` on and its total, in one sort-key range. */
  trendDaysFrom: (scope: TrendScopeRef, day: number) => ({
    pk: trendPartition(scope),
    skFrom: `${trendPrefix(scope)}${sortableNumber(day)}`,
    skTo: `${trendPrefix(scope)}~`,
  }),
  /** Present once every organization of the table has its health aggregates (npm start's upgrade checks it). */
  tableHealthComplete: () => ({ pk: 'MIGRATION', sk: 'HEALTH' }),
  /** The table's stored configurations' literal credentials moved into scan secrets (scans/configuration-migration.ts). */
  tableCredentialsMoved: () => ({ pk: 'MIGRATION', sk: 'CREDENTIALS' }),
  /** Present once every environment of the table has its tool streams (npm start's upgrade checks it). */
  tableStreamsAssigned: () => ({ pk: 'MIGRATION', sk: 'STREAMS' }),
  /** The table's marker that every finding record has its issue (shared/scans/issue-backfill.ts). */
  tableIssuesAssigned: () => ({ pk: 'MIGRATION', sk: 'ISSUES' }),
  /** The table's marker that every environment has its open issues' summary (shared/results/issue-summary.ts). */
  tableOpenIssues: () => ({ pk: 'MIGRATION', sk: 'OPENISSUES' }),
  /** Every hosted description of the table has its routes item (hosted-assets/description-routes.ts). */
  tableDescriptionRoutes: () => ({ pk: 'MIGRATION', sk: 'OASROUTES' }),
  /** Every environment of the table has its open issues by severity and every organization its riskiest entries. */
  tableRiskiest: () => ({ pk: 'MIGRATION', sk: 'RISKIEST' }),
  /** Every environment of the table counts in the overview's coverage counters (overview-coverage-backfill.ts). */
  tableCoverageCounted: () => ({ pk: 'MIGRATION', sk: 'COVERAGE' }),
  /** gsi5 entry of a live application with a scanned environment: by its newest environment scan time. */
  applicationByScanTime: (orgId: string, appId: string, scannedAt: number) => ({
    gsi5pk: `ORGAPPSCANS#${orgId}`,
    gsi5sk: numberOrderKey(scannedAt, appId),
  }),
  /** The applications whose newest environment scan started from `from` to `to` (ms, inclusive). */
  applicationsScannedBetween: (orgId: string, from: number, to: number) => ({
    gsi5pk: `ORGAPPSCANS#${orgId}`,
    gsi5skFrom: sortableNumber(from),
    gsi5skTo: numberOrderBound(to),
  }),

  // ---- Teams (docs/DATA-MODEL.md, Teams). A team lives in its organization's partition, so a team of another
  // organization is simply not found. Its members' memberships (`teamIds`) and its applications (`teamId`) carry
  // copies of the relation, changed in the same transaction as the team item.
  /** A team's own record: name, member and application ids, and the version every team write is conditioned on. */
  team: (orgId: string, teamId: string) => ({ pk: `ORG#${orgId}`, sk: `TEAM#${teamId}` }),
  teamsOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'TEAM#' }),
  /** Claims a team name inside its organization (names are unique per organization, case-insensitively). */
  teamName: (orgId: string, name: string) => ({ pk: `ORG#${orgId}`, sk: `TEAMNAME#${name.toLowerCase()}` }),

  // ---- Named documents of an organization (docs/DATA-MODEL.md, Organization scan configurations):
  // the metadata of each in its organization's partition, the text in S3 (`objectKey`). Names are case-sensitive.
  organizationAsset: (orgId: string, kind: 'configuration' | 'policy', name: string) => ({
    pk: `ORG#${orgId}`,
    sk: `${ASSET_PREFIX[kind]}${name}`,
  }),
  organizationAssetsOfOrg: (orgId: string, kind: 'configuration' | 'policy') => ({
    pk: `ORG#${orgId}`,
    skPrefix: ASSET_PREFIX[kind],
  }),

  // ---- Source-code repositories an organization registers (docs/DATA-MODEL.md, Repositories): in its partition,
  // each with the ids of the applications mapped to it.
  codeRepository: (orgId: string, repoId: string) => ({ pk: `ORG#${orgId}`, sk: `REPO#${repoId}` }),
  codeRepositoriesOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'REPO#' }),

  /** User-activity (audit) entries of an organization, in time order (the audit list reads ranges of it). */
  auditEntry: (orgId: string, timestamp: number, auditId: string) => ({
    pk: `AUDIT#${orgId}`,
    sk: numberOrderKey(timestamp, auditId),
  }),
  auditEntriesOfOrg: (orgId: string) => ({ pk: `AUDIT#${orgId}` }),
  /** Sort-key bound of the audit entries at `timestamp` (ms): entries from it sort after, before it before. */
  auditTimeBound: (timestamp: number) => sortableNumber(timestamp),

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
  /** The paths of the uploaded description, for issue paths (hosted-assets/description-routes.ts). */
  hostedDescriptionRoutes: (appId: string) => ({ pk: `APP#${appId}`, sk: '#OASROUTES' }),
  /** The version of the routes above (none: no description, or routes stored before it): what issue ids depend on. */
  hostedDescriptionRoutesTag: (appId: string) => ({ pk: `APP#${appId}`, sk: '#OASROUTES#TAG' }),
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
    gsi1sk: numberOrderKey(startedAt, scanId),
    gsi3pk: `ORGSCANS#${orgId}`,
    gsi3sk: numberOrderKey(startedAt, scanId),
  }),
  scanRecord: (appId: string, envId: string, scanId: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#SCAN#${scanId}`,
  }),
  /** Where a scan is, by its id alone (the /scan/{scanId} routes): written in the transaction that starts the scan. */
  scanLocation: (scanId: string) => ({ pk: `SCAN#${scanId}`, sk: '#SCAN' }),
  scansOfEnvironment: (envId: string) => ({ gsi1pk: `ENVSCANS#${envId}` }),
  /** Sort-key bound of an environment's scans started at or before `to` (ms). */
  scansStartedBy: (to: number) => numberOrderBound(to),
  /** The organization's scans started from `from` to `to` (ms, inclusive). */
  scansOfOrgBetween: (orgId: string, from: number, to: number) => ({
    gsi3pk: `ORGSCANS#${orgId}`,
    gsi3skFrom: sortableNumber(from),
    gsi3skTo: numberOrderBound(to),
  }),
  /** A hosted scan's coverage record (endScanRun writes it with the scan's completion). */
  scanCoverage: (appId: string, envId: string, scanId: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#SCAN#${scanId}#COVERAGE`,
  }),
  /** Everything a scan owns (alerts, URIs, messages, coverage), not its record. */
  dataOfScan: (appId: string, envId: string, scanId: string) => ({
    pk: `APP#${appId}`,
    skPrefix: `ENVDATA#${envId}#SCAN#${scanId}#`,
  }),
  /**
   * A scan's digest (scans/scan-digest.ts): its head, and after it the chunks of digests too large for the head
   * alone (`#DIGEST#<digestId>#<i>`), all under the scan's data prefix (deleted with it).
   */
  scanDigest: (appId: string, envId: string, scanId: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#SCAN#${scanId}#DIGEST`,
  }),
  scanDigestChunk: (appId: string, envId: string, scanId: string, digestId: string, i: number) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#SCAN#${scanId}#DIGEST#${digestId}#${String(i).padStart(3, '0')}`,
  }),
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
  /** All messages of a scan (a sort-key prefix: msgIds are the scanners'). */
  messagesOfScan: (appId: string, envId: string, scanId: string) => ({
    pk: `APP#${appId}`,
    skPrefix: `ENVDATA#${envId}#SCAN#${scanId}#MSG#`,
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
  finding: (appId: string, envId: string, findingHash: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#FINDING#${findingHash}`,
  }),
  findingsOfEnvironment: (appId: string, envId: string) => ({
    pk: `APP#${appId}`,
    skPrefix: `ENVDATA#${envId}#FINDING#`,
  }),
  /**
   * A request writing finding records before the transaction that publishes its scan (an import, a completion),
   * by that request's id (FindingRecord.recordedBy): while it exists, readers take those records as they were
   * before (docs/DATA-MODEL.md, Findings, Unpublished writes). Per application, not under the environment: an
   * import creating its environment writes under an id nothing else knows until it publishes.
   */
  pendingFindings: (appId: string, attempt: string) => ({ pk: `APP#${appId}`, sk: `PENDING#${attempt}` }),
  pendingFindingsOfApplication: (appId: string) => ({ pk: `APP#${appId}`, skPrefix: 'PENDING#' }),
  /**
   * Every application's pending writes by expiry (gsi1, one partition: there are only as many as requests in flight
   * and stopped ones): the scheduled sweep finds those whose request stopped in applications no request visits again.
   */
  pendingFindingsByExpiry: (appId: string, attempt: string, expiresAt: number) => ({
    gsi1pk: 'PENDINGWRITES',
    gsi1sk: `${sortableNumber(expiresAt)}#${appId}#${attempt}`,
  }),
  /** The pending writes expired by `now` (an index query: eventually consistent). */
  expiredPendingFindings: (now: number) => ({
    index: 'gsi1' as const,
    partition: 'PENDINGWRITES',
    skTo: sortableNumber(now),
  }),
  /**
   * A detection of an issue (docs/ISSUES.md): one finding of the environment that belongs to the issue, beside the
   * findings (written with them, idempotent), so that the issue's detections are one Query.
   */
  issueDetection: (appId: string, envId: string, issueId: string, findingHash: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#ISSUE#${issueId}#${findingHash}`,
  }),
  detectionsOfIssue: (appId: string, envId: string, issueId: string) => ({
    pk: `APP#${appId}`,
    skPrefix: `ENVDATA#${envId}#ISSUE#${issueId}#`,
  }),
  /**
   * The environment's open issues (shared/results/issue-summary.ts; docs/DATA-MODEL.md, Findings report): written by
   * each publication of its scans, marked stale by a retest's fix; the findings report reads it instead of the
   * environment's findings.
   */
  openIssues: (appId: string, envId: string) => ({ pk: `APP#${appId}`, sk: `ENVDATA#${envId}#OPENISSUES` }),
  /**
   * The environment's issues with more than one detection (shared/results/shared-issues.ts; docs/ISSUES.md, What an
   * issue shares): written by each publication of its scans, so that a triage reads an issue's detections only when
   * the issue may have another.
   */
  sharedIssues: (appId: string, envId: string) => ({ pk: `APP#${appId}`, sk: `ENVDATA#${envId}#SHAREDISSUES` }),
  /** The triage rule of a finding (status, note, history): applies to the finding in every scan of the environment. */
  triageRule: (appId: string, envId: string, findingHash: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#RULE#${findingHash}`,
  }),
  /** Counts the environment's triage changes: a scan's completion is conditioned on it, so it never freezes
   * statistics from rules that changed while it computed them. */
  triageVersion: (appId: string, envId: string) => ({ pk: `APP#${appId}`, sk: `ENVDATA#${envId}#TRIAGEVERSION` }),
  /**
   * The overview's overdue digest of the environment (shared/overview/overdue-digests.ts): `version`, which every
   * write of its inputs adds to (a scan's completion or delete, a rule's write), and the digest built at a version.
   */
  overdueDigest: (appId: string, envId: string) => ({ pk: `APP#${appId}`, sk: `ENVDATA#${envId}#OVERDUE` }),
  /** The details of the overdue digest's findings that the overview may list (read only when it lists them). */
  overdueDigestDetails: (appId: string, envId: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#OVERDUE#DETAILS`,
  }),
  triageRulesOfEnvironment: (appId: string, envId: string) => ({
    pk: `APP#${appId}`,
    skPrefix: `ENVDATA#${envId}#RULE#`,
  }),
  /** Marks a configuration hash as used by `scans` scans of the environment (GET .../config/{configHash}). */
  scanConfigUse: (appId: string, envId: string, configHash: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#CONFIG#${configHash}`,
  }),

  // ---- Webhooks (docs/WEBHOOKS.md). Subscriptions and the organization's integration settings live in its
  // partition; each subscription's deliveries in a partition of their own, newest last.
  webhook: (orgId: string, webhookId: string) => ({ pk: `ORG#${orgId}`, sk: `WEBHOOK#${webhookId}` }),
  webhooksOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'WEBHOOK#' }),
  integrationSettings: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: '#INTEGRATIONS' }),
  webhookDelivery: (webhookId: string, createdAt: number, deliveryId: string) => ({
    pk: `WEBHOOKDELIVERIES#${webhookId}`,
    sk: numberOrderKey(createdAt, deliveryId),
  }),
  deliveriesOfWebhook: (webhookId: string) => ({ pk: `WEBHOOKDELIVERIES#${webhookId}` }),
  /**
   * An event waiting to be handed to the delivery queue (the outbox): written in the transaction of the change it
   * describes, removed once handed over. Spread over OUTBOX_SHARDS partitions by event id.
   */
  outboxEvent: (eventId: string, occurredAt: number) => ({
    pk: `OUTBOX#${outboxShard(eventId)}`,
    sk: numberOrderKey(occurredAt, eventId),
  }),
  outboxShard: (shard: number) => ({ pk: `OUTBOX#${shard}` }),
  /** A message of the local delivery queue (`npm start`'s stand-in for SQS): `queue` is 'main' or 'dead'. */
  queueMessage: (queue: string, messageId: string) => ({ pk: `QUEUE#${queue}`, sk: messageId }),
  queueMessages: (queue: string) => ({ pk: `QUEUE#${queue}` }),
  // ---- Issue trackers (docs/TRACKERS.md). Connections live in the organization's partition; an issue's ticket
  // beside its findings, under its environment's data prefix (the environment and application cascades remove it).
  tracker: (orgId: string, trackerId: string) => ({ pk: `ORG#${orgId}`, sk: `TRACKER#${trackerId}` }),
  trackersOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'TRACKER#' }),
  /** `ticketId`: the issue's id (a ticket made before tickets were per issue: its finding's hash; ticketIdOf). */
  ticket: (appId: string, envId: string, ticketId: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#TICKET#${ticketId}`,
  }),
  ticketsOfEnvironment: (appId: string, envId: string) => ({
    pk: `APP#${appId}`,
    skPrefix: `ENVDATA#${envId}#TICKET#`,
  }),
  // ---- Scan secrets (docs/HOSTED-SCANS.md, "Scan secrets"): an application's in its partition (its cascade delete
  // removes them), an organization's in the organization's. Names are case-sensitive, as environment variables are.
  applicationScanSecret: (appId: string, name: string) => ({ pk: `APP#${appId}`, sk: `SCANSECRET#${name}` }),
  applicationScanSecrets: (appId: string) => ({ pk: `APP#${appId}`, skPrefix: 'SCANSECRET#' }),
  organizationScanSecret: (orgId: string, name: string) => ({ pk: `ORG#${orgId}`, sk: `SCANSECRET#${name}` }),
  organizationScanSecrets: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'SCANSECRET#' }),
  // ---- Findings governance (docs/GOVERNANCE.md).
  /** The organization's SLA policy: days per severity and the risk acceptance default and maximum. */
  slaPolicy: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: '#SLA' }),
  /** An application's SLA override: in its partition, so that deleting the application deletes it. */
  applicationSla: (appId: string) => ({ pk: `APP#${appId}`, sk: '#SLA' }),
  /** An environment's SLA override: among the environment's data, so that deleting the environment deletes it. */
  environmentSla: (appId: string, envId: string) => ({ pk: `APP#${appId}`, sk: `ENVDATA#${envId}#SLA` }),
  /**
   * A risk acceptance that expires: one entry per accepted finding, in the partition of its expiry's UTC day
   * (ordered by expiry), so the expiry check reads only the due entries of the days since it last ran, never a scan.
   */
  riskExpiry: (expiresAt: number, appId: string, envId: string, findingHash: string) => ({
    pk: `RISKEXPIRY#${expiryDay(expiresAt)}`,
    sk: `${sortableNumber(expiresAt)}#${appId}#${envId}#${findingHash}`,
  }),
  /** The entries of a day's partition due by `now` (ms): those of earlier times, never the rest of the day. */
  riskExpiriesDue: (day: number, now: number) => ({ pk: `RISKEXPIRY#${day}`, skTo: numberOrderBound(now) }),
  /** The first UTC day (days since the epoch) whose partition may still hold entries: where the check starts. */
  riskExpiryCursor: () => ({ pk: 'RISKEXPIRY', sk: '#CURSOR' }),
  /**
   * An environment whose findings may come due (docs/GOVERNANCE.md, Overdue findings): an entry in the partition of
   * its check time's UTC day, ordered by that time, so the overdue check reads only the entries due since it last
   * ran. gsi1 lists an organization's entries by check time (an SLA change brings the later ones forward).
   */
  overdueWake: (checkAt: number, orgId: string, appId: string, envId: string) => ({
    pk: `SLAWAKE#${expiryDay(checkAt)}`,
    sk: `${sortableNumber(checkAt)}#${appId}#${envId}`,
    gsi1pk: `SLAWAKEORG#${orgId}`,
    gsi1sk: `${sortableNumber(checkAt)}#${appId}#${envId}`,
  }),
  /** The entries of a day's partition due by `now` (ms). */
  overdueWakesDue: (day: number, now: number) => ({ pk: `SLAWAKE#${day}`, skTo: numberOrderBound(now) }),
  /** An organization's entries checked after `after` (ms), on gsi1. */
  overdueWakesOfOrgAfter: (orgId: string, after: number) => ({
    gsi1pk: `SLAWAKEORG#${orgId}`,
    gsi1skFrom: `${sortableNumber(after + 1)}#`,
  }),
  /** The first UTC day whose partition may still hold entries: where the overdue check starts. */
  overdueCursor: () => ({ pk: 'SLAWAKE', sk: '#CURSOR' }),
  /** An organization whose SLA changed: the check brings its environments' later entries forward. */
  slaRecheck: (orgId: string) => ({ pk: 'SLARECHECK', sk: orgId }),
  slaRechecks: () => ({ pk: 'SLARECHECK' }),
  /** The mark of a finding's last findingOverdue event, among its environment's data (deleted with it). */
  overdueFired: (appId: string, envId: string, findingHash: string) => ({
    pk: `APP#${appId}`,
    sk: `ENVDATA#${envId}#OVERDUE#${findingHash}`,
  }),
  overdueFiredOfEnvironment: (appId: string, envId: string) => ({
    pk: `APP#${appId}`,
    skPrefix: `ENVDATA#${envId}#OVERDUE#`,
  }),
  // ---- Hosted scans (docs/HOSTED-SCANS.md).
  /** An application's hosted scan: its current or last run of startScan (one active run per application). */
  perchRun: (appId: string) => ({ pk: `APP#${appId}`, sk: '#PERCH' }),
  /** A retest of one finding (docs/HOSTED-SCANS.md, Retests): its outcome, kept after its run. */
  retest: (appId: string, retestId: string) => ({ pk: `APP#${appId}`, sk: `RETEST#${retestId}` }),
  /** A scanner agent (device) of an organization. */
  perchDevice: (orgId: string, deviceId: string) => ({ pk: `ORG#${orgId}`, sk: `DEVICE#${deviceId}` }),
  perchDevicesOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'DEVICE#' }),
  /**
   * A device's open wake channel (docs/HOSTED-SCANS.md, Idle agents): in its organization's partition, which a wake
   * queries; gsi1 finds it by the connection id alone, all that a disconnect is told.
   */
  /** A device's wake connection, its newest (a reconnect replaces it); found by the connection's id at $disconnect. */
  perchWakeConnection: (orgId: string, deviceId: string) => ({ pk: `ORG#${orgId}`, sk: `WAKE#${deviceId}` }),
  perchWakeConnectionIndex: (connectionId: string) => ({ gsi1pk: `WAKECONN#${connectionId}`, gsi1sk: '#WAKE' }),
  perchWakeConnectionsOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'WAKE#' }),
  /** A started run waiting for an agent of its organization, in start order (the organization's queue). */
  perchQueued: (orgId: string, createdAt: number, scanKey: string) => ({
    pk: `PERCHQUEUE#${orgId}`,
    sk: numberOrderKey(createdAt, scanKey),
  }),
  perchQueueOfOrg: (orgId: string) => ({ pk: `PERCHQUEUE#${orgId}` }),
  /**
   * A profile scan's result (docs/PROFILE-SCANS.md): its scanKey is a time-ordered UUID (version 7), so the
   * application's results sort oldest to newest.
   */
  profileResult: (appId: string, scanKey: string) => ({ pk: `APP#${appId}`, sk: `PROFILE#${scanKey.toLowerCase()}` }),
  profileResultsOfApp: (appId: string) => ({ pk: `APP#${appId}`, skPrefix: 'PROFILE#' }),
  /** The organization's running hosted scans, counted against its concurrency limit (and an operator's own limit). */
  perchSlots: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: '#PERCHSLOTS' }),
  /** The organization's agent pools: which team each pool label belongs to (docs/HOSTED-SCANS.md, Agent pools). */
  perchPools: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: '#PERCHPOOLS' }),
  /** A host the organization allows hosted scans to reach without a verification token (private addresses too). */
  scanDomain: (orgId: string, host: string) => ({ pk: `ORG#${orgId}`, sk: `SCANDOMAIN#${host.toLowerCase()}` }),
  // ---- Scan schedules (docs/HOSTED-SCANS.md, Schedules).
  /** A schedule of an application's hosted scans: in its partition, so that deleting the application deletes it. */
  schedule: (appId: string, scheduleId: string) => ({ pk: `APP#${appId}`, sk: `SCHEDULE#${scheduleId}` }),
  schedulesOfApp: (appId: string) => ({ pk: `APP#${appId}`, skPrefix: 'SCHEDULE#' }),
  /** How many schedules the application has: changed with each create and delete, bounded by its condition. */
  scheduleCount: (appId: string) => ({ pk: `APP#${appId}`, sk: '#SCHEDULES' }),
  /**
   * The local clock's entry of an enabled schedule (`npm start`; EventBridge Scheduler is the clock on AWS): one
   * partition ordered by the time it is next due, so the embedded scheduler reads only what is due.
   */
  scheduleDue: (dueAt: number, appId: string, scheduleId: string) => ({
    pk: 'SCHEDULEDUE',
    sk: `${sortableNumber(dueAt)}#${appId}#${scheduleId}`,
  }),
  schedulesDueBy: (now: number) => ({ pk: 'SCHEDULEDUE', skTo: numberOrderBound(now) }),
  // ---- Single sign-on (docs/IDENTITY.md "Single sign-on").
  /** The organization's OpenID Connect provider. */
  ssoProvider: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: '#SSO' }),
  /** A sign-in under way, by the SHA-256 of its `state`: single use, gone after its expiry (TTL). */
  ssoSignIn: (stateHash: string) => ({ pk: `SSOSIGNIN#${stateHash}`, sk: '#SSOSIGNIN' }),
  /** The user an identity (issuer and subject) of the organization's provider is linked to. */
  ssoIdentity: (orgId: string, issuer: string, subject: string) => ({
    pk: `ORG#${orgId}`,
    sk: `SSOIDENTITY#${issuer}#${subject}`,
  }),
  /** A session started by single sign-on: refresh needs it, sign-out deletes it. */
  ssoSession: (userId: string, sessionId: string) => ({ pk: `USER#${userId}`, sk: `SSOSESSION#${sessionId}` }),
};

/** Days since the epoch (UTC) of a time in ms: the partition of the risk expiries due that day. */
export const expiryDay = (ms: number) => Math.floor(ms / 86_400_000);

/** Keys of the rate-limit table: one sliding-window record per subject. */
export const rateLimitKeys = {
  user: (userId: string) => ({ pk: `user#${userId}` }),
  loginKey: (secretHash: string) => ({ pk: `login-key#${secretHash}` }),
  loginSource: (sourceIp: string) => ({ pk: `login-ip#${sourceIp}` }),
  /** Operations without credentials (acceptInvitation), apart from login's budget. */
  anonymousSource: (sourceIp: string) => ({ pk: `anonymous-ip#${sourceIp}` }),
};
