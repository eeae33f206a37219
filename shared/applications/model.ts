import type { Membership } from '../context/caller.ts';
import { createHash, randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { displayableText } from '../input/names.ts';
import { enumListParam } from '../lists.ts';
import { sortableNumber } from '../db/sortable.ts';
import { keys } from '../db/keys.ts';
import type { Projected } from '../db/entity-write.ts';

// The applications' model: the records as stored (applications, environments, teams, registered code repositories,
// list entries), the health figures with their pure arithmetic, the name rules and the team rule. It imports no
// module of the application layer, so the repositories, the health aggregates and the lists all build on it
// (shared/applications has no import cycle: test/unit/import-cycles.test.ts), and only the kernel and other models
// (docs/LAYOUT.md, Layers).

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

export type ApplicationType = 'STANDARD' | 'CLOUD';
export type ApplicationStatus = 'ACTIVE' | 'ENV_INCOMPLETE';
/** Where a repository is hosted (the public repository.Repository.repoSource values). */
export const REPO_SOURCES = ['GITHUB', 'AZURE_DEVOPS', 'BITBUCKET', 'GITLAB', 'UNKNOWN'] as const;
export type RepoSource = (typeof REPO_SOURCES)[number];
/** What a scan's configuration scans (application.Environment.latestScanType): its API description's kind. */
export type ScanType = 'DEFAULT' | 'REST' | 'GRAPHQL' | 'GRPC' | 'SOAP';

/** An application as stored (docs/API.md, Applications). Its environments are separate items in its partition. */
export interface ApplicationRecord {
  applicationId: string;
  organizationId: string;
  name: string;
  applicationType: ApplicationType;
  /** ENV_INCOMPLETE while the application has no environment, ACTIVE once it has one. */
  applicationStatus: ApplicationStatus;
  cloudScanTarget?: { targetURL: string; isDomainVerified: boolean };
  /** Its hosted scans' runs go only to agents carrying these labels (docs/HOSTED-SCANS.md, Agent pools). */
  requiredAgentLabels?: string[];
  dataType?: string;
  riskLevel?: string;
  /**
   * The owning team, if any (docs/API.md, Team rules). Set when it is created for a team, then changed only by a
   * team's write (entities.ts teamApplications).
   */
  teamId?: string;
  /** Live environments; every environment create/delete changes it in its own transaction. */
  environmentCount: number;
  /** Set when a cascade delete has started: the application is gone for every reader from that moment. */
  deleting?: boolean;
  /** Its name has trigram postings (keys.applicationNameIndex); absent: only the entity's own index entry, if any. */
  nameTrigrams?: boolean;
  createdAt: number;
  /** Its live environments' last-scan figures (health.ts), counted in its bucket's aggregates while `healthVersion` is set. */
  health?: ApplicationHealth;
  /** Changes with every health write; absent: written before the aggregates, not counted yet (npm run migrate counts it). */
  healthVersion?: number;
}

/** Last-scan status as the environment view reports it (application_view.EnvironmentView.lastScanStatus). */
export type LastScanStatus = 'COMPLETED' | 'ERROR' | 'STARTED';

/** The most recent scan of an environment, written by the scan's end through environmentLastScanUpdate. */
export interface LastScan {
  lastScanId: string;
  lastScanStatus: LastScanStatus;
  /** Milliseconds since the epoch. */
  lastScanTimestamp: number;
  lastScanCompletedTimestamp?: number;
  lastScanDuration?: number;
  lastScanTotalUntriaged?: number;
  lastScanHighUntriaged?: number;
  lastScanMediumUntriaged?: number;
  lastScanLowUntriaged?: number;
  latestScanConfigHash?: string;
  lastScanHawkscanVersion?: string;
  /** DEFAULT, REST, GRAPHQL, GRPC or SOAP: what the last scan's configuration scans. */
  latestScanType?: ScanType;
}

/**
 * The latest scan of one tool stream of an environment (docs/DATA-MODEL.md, Tool streams): the scan whose findings
 * are the stream's current ones, and its untriaged findings by severity (kept current by triage).
 */
export interface StreamHead {
  scanId: string;
  status: LastScanStatus;
  /** ms */
  startedAt: number;
  High: number;
  Medium: number;
  Low: number;
  /**
   * A COMPLETED scan's findings (its `stats.totalAlerts`: the rows it gives the findings report), so that the report
   * pages without reading every current scan; absent on heads written before it (then read from the scan).
   */
  totalAlerts?: number;
}

/** An environment's tool streams by name (`zap`, `nuclei`, `sarif:<driver>`, `hawkscan`...). */
export type EnvironmentStreams = Record<string, StreamHead>;

/**
 * The environment's untriaged figures: the union of its streams' latest scans (docs/DATA-MODEL.md, Tool streams),
 * a pure function of its streams, so that its write and its application's health read the same figures.
 */
export function streamFigures(
  streams: EnvironmentStreams,
): Pick<
  LastScan,
  'lastScanTotalUntriaged' | 'lastScanHighUntriaged' | 'lastScanMediumUntriaged' | 'lastScanLowUntriaged'
> {
  const heads = Object.values(streams);
  const sum = (severity: 'High' | 'Medium' | 'Low') => heads.reduce((n, head) => n + head[severity], 0);
  const [high, medium, low] = [sum('High'), sum('Medium'), sum('Low')];
  return {
    lastScanTotalUntriaged: high + medium + low,
    lastScanHighUntriaged: high,
    lastScanMediumUntriaged: medium,
    lastScanLowUntriaged: low,
  };
}

/** The scan fields of an environment whose scans are `streams` and whose last scan is `lastScan` (a new one). */
export const scanFieldsOf = (lastScan: LastScan, streams: EnvironmentStreams) => ({
  ...lastScan,
  streams,
  streamsVersion: 1,
  ...streamFigures(streams),
});

/** An environment as stored (docs/API.md, Environments); its team is its application's (lists join the two). */
export interface EnvironmentRecord extends Partial<LastScan> {
  environmentId: string;
  applicationId: string;
  organizationId: string;
  name: string;
  /** Copied from the application (never changes after creation) so that lists can filter without a join. */
  applicationType: ApplicationType;
  deleting?: boolean;
  /** Its name has trigram postings (keys.environmentNameIndex); absent: only the entity's own index entry, if any. */
  nameTrigrams?: boolean;
  createdAt: number;
  /**
   * The S3 object holding the default configuration set by POST .../config/default; absent: the one written when
   * the environment was created (objectKeys.environmentConfig).
   */
  defaultConfigKey?: string;
  /**
   * Its tool streams' latest scans; its untriaged figures are their union (streamFigures). Absent on environments
   * written before streams (npm run migrate assigns them): then its last scan alone is its one stream.
   */
  streams?: EnvironmentStreams;
  /** Changes with every change of `streams`: each write of them is conditioned on the version read. */
  streamsVersion?: number;
  /**
   * Counted in the overview's coverage counters (projections/environment-coverage.ts); absent: written before them,
   * not counted yet (npm run migrate counts it).
   */
  coverageCounted?: boolean;
  /**
   * Its open issues by their severity (OPEN_ISSUE_FIELDS; docs/GOVERNANCE.md, The overview): the issues the findings
   * report counts open (a finding neither fixed nor verified fixed: shared/results/issue-summary.ts), each once in the
   * highest risk severity of its open findings. Written whole by each publication of its scans, moved by a retest's
   * fix; absent: written before them (npm run migrate counts them).
   */
  openIssuesHigh?: number;
  openIssuesMedium?: number;
  openIssuesLow?: number;
  /**
   * Its open issues whose open findings are all Info (no risk severity): with the three above, the count the
   * findings report's `totalIssues` sums without reading the environment's summary. Absent: written before it (the
   * report reads the summary).
   */
  openIssuesInfo?: number;
}

/** What the findings report reads of an environment: its gsi2r entry (shared/db/tables.ts REPORT_ENTRY_ATTRIBUTES). */
export type ReportEnvironment = Pick<
  EnvironmentRecord,
  'applicationId' | 'environmentId' | 'organizationId' | 'name' | 'streams'
> &
  Partial<OpenIssueCounts>;

/** What the findings report shows of an application: its name and team (its record, or its compact entry). */
export type ReportApplication = Pick<ApplicationRecord, 'applicationId' | 'organizationId' | 'name' | 'teamId'>;

/** An environment's open issues by severity (EnvironmentRecord.openIssues*). */
export interface OpenIssueCounts {
  openIssuesHigh: number;
  openIssuesMedium: number;
  openIssuesLow: number;
  /** Absent: counts carried over from a record written before it (a retest's fix moves the three others alone). */
  openIssuesInfo?: number;
}
export const OPEN_ISSUE_FIELDS = ['openIssuesHigh', 'openIssuesMedium', 'openIssuesLow', 'openIssuesInfo'] as const;
export const NO_OPEN_ISSUES: OpenIssueCounts = {
  openIssuesHigh: 0,
  openIssuesMedium: 0,
  openIssuesLow: 0,
  openIssuesInfo: 0,
};
/** All of an environment's open issues (the summary's count), when its record counts them all. */
export const openIssuesTotal = (env: Partial<OpenIssueCounts>): number | undefined =>
  OPEN_ISSUE_FIELDS.every((field) => env[field] !== undefined)
    ? OPEN_ISSUE_FIELDS.reduce((n, field) => n + env[field]!, 0)
    : undefined;
/** Whether `counts` differ from the environment's (an environment not counted yet: always). */
export const openIssuesChanged = (env: Partial<OpenIssueCounts>, counts: OpenIssueCounts) =>
  OPEN_ISSUE_FIELDS.some((field) => env[field] !== counts[field]);

// ---- Health: the figures of environments, applications and (type, team) buckets (health.ts keeps them).

export const DAY = 24 * 60 * 60 * 1000;

/** An environment's or application's figures: untriaged findings of the last scan(s), errored ones, newest scan start. */
export interface ApplicationHealth {
  high: number;
  medium: number;
  low: number;
  total: number;
  /** Environments whose last scan errored. */
  failed: number;
  /** Newest last-scan start (ms) of its environments; 0: none scanned. */
  scannedAt: number;
  /**
   * The open issues of its environments by severity (their `openIssues*`, summed): the riskiest applications' open
   * figures. Absent on figures written before them (read as 0).
   */
  openHigh?: number;
  openMedium?: number;
  openLow?: number;
}

/** A bucket's sums (organization counter fields), or a change of them. */
export interface BucketHealth {
  untriagedHigh: number;
  untriagedMedium: number;
  untriagedLow: number;
  untriagedTotal: number;
  failedScans: number;
  /** Applications with a scanned environment. */
  scannedApplications: number;
  /** Applications with at least one environment (the stats' totalApps). */
  activeApplications: number;
}

export const NO_HEALTH: ApplicationHealth = {
  high: 0,
  medium: 0,
  low: 0,
  total: 0,
  failed: 0,
  scannedAt: 0,
  openHigh: 0,
  openMedium: 0,
  openLow: 0,
};

/** What environmentHealth reads of an environment: its last scan's fields and its open issues. */
export type HealthSource = Partial<LastScan> & Partial<OpenIssueCounts>;
export const BUCKET_HEALTH_FIELDS = [
  'untriagedHigh',
  'untriagedMedium',
  'untriagedLow',
  'untriagedTotal',
  'failedScans',
  'scannedApplications',
  'activeApplications',
] as const;

/** What one environment's last scan contributes (nothing without one). */
export function environmentHealth(scan: HealthSource | undefined): ApplicationHealth {
  return {
    high: scan?.lastScanHighUntriaged ?? 0,
    medium: scan?.lastScanMediumUntriaged ?? 0,
    low: scan?.lastScanLowUntriaged ?? 0,
    total: scan?.lastScanTotalUntriaged ?? 0,
    failed: scan?.lastScanStatus === 'ERROR' ? 1 : 0,
    scannedAt: scan?.lastScanTimestamp ?? 0,
    openHigh: scan?.openIssuesHigh ?? 0,
    openMedium: scan?.openIssuesMedium ?? 0,
    openLow: scan?.openIssuesLow ?? 0,
  };
}

/** The application's figures from its environments' last scans. */
export function applicationHealthOf(envs: HealthSource[]): ApplicationHealth {
  const sum = { ...NO_HEALTH };
  for (const env of envs) {
    const h = environmentHealth(env);
    for (const f of SUMMED_HEALTH_FIELDS) sum[f] = (sum[f] ?? 0) + (h[f] ?? 0);
    sum.scannedAt = Math.max(sum.scannedAt, h.scannedAt);
  }
  return sum;
}

/** The figures of ApplicationHealth that are sums of its environments' (scannedAt is their newest). */
export const SUMMED_HEALTH_FIELDS = [
  'high',
  'medium',
  'low',
  'total',
  'failed',
  'openHigh',
  'openMedium',
  'openLow',
] as const satisfies readonly (keyof ApplicationHealth)[];

/** What an application with `health` and `active` (has environments) adds to its bucket's sums (sign -1: removes). */
export function bucketShare(health: ApplicationHealth, active: boolean, sign: 1 | -1 = 1): BucketHealth {
  return {
    untriagedHigh: sign * health.high,
    untriagedMedium: sign * health.medium,
    untriagedLow: sign * health.low,
    untriagedTotal: sign * health.total,
    failedScans: sign * health.failed,
    scannedApplications: sign * (health.scannedAt > 0 ? 1 : 0),
    activeApplications: sign * (active ? 1 : 0),
  };
}

export function addBucketHealth(a: BucketHealth | undefined, b: BucketHealth | undefined): BucketHealth | undefined {
  if (!a) return b;
  if (!b) return a;
  return Object.fromEntries(BUCKET_HEALTH_FIELDS.map((f) => [f, a[f] + b[f]])) as unknown as BucketHealth;
}

/** The gsi1 partition of environments without scans (the LAST_SCAN_STATUS_UNSPECIFIED filter). */
export const NO_SCAN_STATUS = 'NONE';

export const HOUR = 60 * 60 * 1000;

export interface CodeRepositoryRecord {
  repoId: string;
  organizationId: string;
  name: string;
  repoSource: RepoSource;
  remoteUrl: string;
  defaultBranch: string;
  languages: { name: string; percent?: number; size?: number }[];
  frameworkNames: string[];
  /** Commits in the last 30 days, as the registering client supplied them. */
  commitCount: number;
  lastCommitTimestamp: number;
  /** The applications mapped to the repository. */
  appIds: string[];
  /** The API descriptions of its code: uploaded hosted descriptions (oasId) and the path each describes. */
  openApiSpecs?: { oasId: string; sourceRootPath: string }[];
  /** Incremented by every change: writes are conditional on the revision they read. */
  revision: number;
  createdAt: number;
  updatedAt: number;
}

/** A repository's id: the same source and name (case-insensitive) in an organization is always the same repository. */
export function codeRepositoryId(orgId: string, repoSource: string, name: string): string {
  const hex = createHash('sha256').update(`${orgId}\n${repoSource}\n${name.toLowerCase()}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A team as stored (docs/API.md, Teams): the authoritative member and application lists. Memberships (`teamIds`) and
 * applications (`teamId`) hold copies, written in the same transaction as the team item. `applicationIds` may
 * still name an application deleted since (an application delete does not touch its team): readers drop those.
 */
export interface TeamRecord {
  teamId: string;
  organizationId: string;
  name: string;
  userIds: string[];
  applicationIds: string[];
  /** Incremented by every write of the team; every write is conditioned on the version it read. */
  version: number;
  createdAt: number;
}

/** An environment's or application's compact entry, with the sort key of the index it was read from. */
export interface ListEntry {
  applicationId: string;
  environmentId: string;
  name: string;
  applicationType: ApplicationType;
  applicationStatus?: ApplicationStatus;
  teamId?: string;
  environmentCount?: number;
  lastScanStatus?: LastScanStatus;
  lastScanTimestamp?: number;
  lastScanDuration?: number;
  lastScanTotalUntriaged?: number;
  lastScanHighUntriaged?: number;
  lastScanMediumUntriaged?: number;
  lastScanLowUntriaged?: number;
  sortKey: string;
}

// ---- Environments

/** The orders the environment indexes keep: name (gsi2), last scan time (gsi3), id (gsi4), duration (gsi5), findings (gsi6). */
export type EnvironmentListOrder = 'name' | 'scanDate' | 'id' | 'duration' | 'findings';

// ---- Names containing a text (the `query` filter), from the trigram index (gsi7, keys.ts nameIndex)

/** A name index entry: the application's or environment's id and its name. */
export interface NameMatch {
  applicationId: string;
  environmentId?: string;
  name: string;
}

// ---- Applications, per (type, owning team) partition like the organization counters

/** One (application type, owning team) bucket of an organization, with its live counts (the organization counter). */
export interface Bucket {
  applicationType: ApplicationType;
  teamId: string | undefined;
  applications: number;
  environments: number;
  /** Its health sums (health.ts), for includeAppHealthStats. */
  health: BucketHealth;
}

export type ApplicationListOrder = 'name' | 'id' | 'status';

/**
 * What a caller's list may show of an organization (docs/API.md, Team rules; the applicationTypes and teamIds
 * filters): the selected (type, team) buckets with their counts, and a test of an entry by its application. Entries
 * carry their type; the team is the application's, so when some buckets are hidden from the caller by team, the
 * ids of the smaller side (hidden or shown applications) are read from the per-bucket index (compact).
 */
export interface ListScope {
  buckets: Bucket[];
  /** Live applications and environments of the selected buckets (the organization counters). */
  counts: { applications: number; environments: number };
  /** Live applications and environments of every bucket of the organization (its counters): what its indexes hold. */
  organization: { applications: number; environments: number };
  /** The selected buckets are all the organization's with applications: `keep` hides only deleting applications. */
  whole: boolean;
  keep(entry: Pick<ListEntry, 'applicationId' | 'applicationType'>): boolean;
  /**
   * `keep` for an application known by its id alone (a name index entry carries no type): reads the ids of the
   * smaller side, the scope's applications or the organization's others (compact), once per list.
   */
  applicationKeep(): Promise<(appId: string) => boolean>;
}

/** What listScope shows once the counters are read (its onBuckets), before the hidden applications' ids. */
export interface CountedScope extends Pick<ListScope, 'buckets' | 'counts' | 'organization'> {
  /** Starts applicationKeep's read of ids now (beside the hidden applications' ids), its answer taken later. */
  startApplicationKeep(): void;
}

/** The owning teams (undefined: unowned) whose applications a teamIds filter shows (docs/API.md, Team rules). */
export function visibleTeams(membership: Membership, teamIds: string[]): (string | undefined)[] {
  return teamIds.length ? teamIds.filter((t) => membership.teamIds.includes(t)) : [undefined, ...membership.teamIds];
}

/** Team rule (docs/API.md, Team rules): a team-owned resource is for that team's members only. */
export function canSeeTeamResource(membership: Membership, teamId: string | undefined): boolean {
  return !teamId || membership.teamIds.includes(teamId);
}

export function newEnvironment(app: ApplicationRecord, name: string): EnvironmentRecord {
  return {
    environmentId: randomUUID(),
    applicationId: app.applicationId,
    organizationId: app.organizationId,
    name,
    applicationType: app.applicationType,
    createdAt: Date.now(),
  };
}

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

/** listEnvironments' plan: one application's environments are its own partition, always read whole and sorted. */
export const DEPRECATED_ENVIRONMENT_LIST_PLAN = { kind: 'set', source: 'application' } as const;

export const APPLICATION_TYPES = ['STANDARD', 'CLOUD'] as const;

// ---- Bodies

export const applicationNameSchema = schema(() =>
  z.string().check(z.trim(), z.maxLength(255, 'must be at most 255 characters'), displayableText()),
);

/** Environment names: non-empty, unique per application (case-insensitively); commas separate names in filters. */
export const environmentNameSchema = schema(() =>
  z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'must not be empty'),
      z.maxLength(255, 'must be at most 255 characters'),
      z.regex(/^[^,]*$/, 'must not contain a comma (lists of names are comma-delimited)'),
      displayableText(),
    ),
);

// ---- Lists

export const applicationTypesParam = () => enumListParam(APPLICATION_TYPES, ['STANDARD']);

// ---- The overview's riskiest applications (projections/riskiest-applications.ts): their ranking, pure.

/** The figures an entry ranks by and shows. */
export interface RiskFigures {
  openHigh: number;
  openMedium: number;
  openLow: number;
  high: number;
  medium: number;
  low: number;
  total: number;
}

/** An entry as stored (besides its keys). */
export interface RiskiestEntry extends RiskFigures {
  applicationId: string;
  organizationId: string;
  name: string;
  applicationType: ApplicationRecord['applicationType'];
  teamId?: string;
  failed: number;
  scannedAt: number;
}

/** The ranking's figures of an application's health (figures written before the open issues: 0). */
export const riskFigures = (
  health: ApplicationHealth | undefined,
): RiskFigures & Pick<ApplicationHealth, 'failed' | 'scannedAt'> => {
  const h = { ...NO_HEALTH, ...health };
  return {
    openHigh: h.openHigh ?? 0,
    openMedium: h.openMedium ?? 0,
    openLow: h.openLow ?? 0,
    high: h.high,
    medium: h.medium,
    low: h.low,
    total: h.total,
    failed: h.failed,
    scannedAt: h.scannedAt,
  };
};

const RANKED = ['openHigh', 'openMedium', 'openLow', 'high', 'medium', 'low', 'total'] as const;

/**
 * The riskiest first: most open High issues, then Medium, then Low, then untriaged High, Medium, Low and total, then
 * the application id ascending. The order of the entries' keys (riskRank) read in descending order.
 */
export function riskOrder(a: RiskFigures & { applicationId: string }, b: RiskFigures & { applicationId: string }) {
  for (const field of RANKED) if (a[field] !== b[field]) return b[field] - a[field];
  return a.applicationId < b.applicationId ? -1 : a.applicationId > b.applicationId ? 1 : 0;
}

/** Printable ASCII mirrored (a character c becomes 158 - c), so that ids sort backwards (they are of one length). */
const mirrored = (id: string) =>
  [...id].map((c) => (c >= ' ' && c <= '~' ? String.fromCharCode(158 - c.charCodeAt(0)) : c)).join('');

/** The entry's sort key: its ranked figures (15 digits each) then its id mirrored (ties: the smaller id first). */
export const riskRank = (entry: RiskFigures & { applicationId: string }) =>
  `${RANKED.map((field) => sortableNumber(entry[field])).join('#')}#${mirrored(entry.applicationId)}`;

/** The application's entry (undefined: none: unknown, being deleted or without untriaged findings). */
export function entryOf(app: ApplicationRecord | undefined): RiskiestEntry | undefined {
  if (!app || app.deleting) return undefined;
  const figures = riskFigures(app.health);
  if (figures.total <= 0) return undefined;
  return {
    applicationId: app.applicationId,
    organizationId: app.organizationId,
    name: app.name,
    applicationType: app.applicationType,
    ...(app.teamId !== undefined && { teamId: app.teamId }),
    ...figures,
  };
}

/**
 * A move of the environment's overdue digest version (keys.overdueDigest; shared/overview/overdue-digests.ts): each
 * write of what its overdue findings are computed from (a scan becoming current or not, a triage rule) adds one, as a
 * projection of that write, so that the overview never reads a digest built before it. Netted per environment.
 */
export const overdueDigestMove = (env: { applicationId: string; environmentId: string }): Projected => ({
  counters: [
    { key: keys.overdueDigest(env.applicationId, env.environmentId), entity: 'overdueDigest', add: { version: 1 } },
  ],
});
