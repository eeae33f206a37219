import { REPO_SOURCES, applicationNameSchema } from '../applications/model.ts';
import * as z from 'zod/mini';
import {
  caseInsensitiveEnum,
  enumListParam,
  listParam,
  pageSizeParam,
  pageTokenParam,
  uuidListParam,
  v2PageParam,
  v2QueryParam,
} from '../lists.ts';
import { UUID } from '../input/uuid.ts';

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

// Inputs of the repository operations (source-code repositories an organization registers), as the route table
// declares them. Only zod here: the route table is read by the CDK stack and the generators too.

const MAX_MAPPED_APPS = 100;
/** API descriptions one repository may list (its record stays far below DynamoDB's 400 KB). */
export const MAX_REPOSITORY_SPECS = 50;

const text = (max: number) => z.string().check(z.trim(), z.maxLength(max, `must be at most ${max} characters`));

/** Our own operation (PUT /api/v1/org/{orgId}/repos): registers a repository, or updates the one of that source and name. */
export const registerRepositoryBody = schema(() =>
  z.object({
    name: text(255).check(
      z.minLength(1, 'must not be empty'),
      z.regex(/^[\w.\-/ ]+$/, 'must contain only letters, digits, spaces and . _ - /'),
    ),
    repoSource: z._default(
      z.optional(z.enum(REPO_SOURCES, { error: `must be one of ${REPO_SOURCES.join(', ')}` })),
      'UNKNOWN',
    ),
    remoteUrl: z.optional(z.url({ protocol: /^(https?|ssh|git)$/, error: 'must be an http(s), ssh or git URL' })),
    defaultBranch: z.optional(text(255)),
    languages: z.optional(
      z
        .array(
          z.object({
            name: text(100).check(z.minLength(1, 'must not be empty')),
            percent: z.optional(z.number().check(z.gte(0), z.lte(100))),
            size: z.optional(z.number().check(z.int(), z.gte(0))),
          }),
        )
        .check(z.maxLength(100)),
    ),
    frameworkNames: z.optional(z.array(text(100)).check(z.maxLength(100))),
    commitCount: z.optional(
      z.number().check(z.int('must be an integer'), z.gte(0, 'must be 0 or more'), z.lte(2147483647)),
    ),
    lastCommitTimestamp: z.optional(z.number().check(z.int('must be an integer (ms)'), z.gte(0, 'must be 0 or more'))),
    /**
     * The API descriptions of the repository's code: each names an uploaded hosted description of the organization
     * (its `oasId`, an application id) and the path in the repository it describes. Replaces the list when given.
     */
    openApiSpecs: z.optional(
      z
        .array(
          z.object({
            oasId: z.string().check(z.regex(UUID, 'must be a UUID (the oasId of an uploaded description)')),
            sourceRootPath: z._default(z.optional(text(1024)), ''),
          }),
        )
        .check(z.maxLength(MAX_REPOSITORY_SPECS, `at most ${MAX_REPOSITORY_SPECS} descriptions`)),
    ),
  }),
);
export type RegisterRepository = z.output<typeof registerRepositoryBody>;

const appInfo = schema(() => z.object({ id: z.string().check(z.regex(UUID, 'must be a UUID')) }));

/** `repository.ReplaceRepositoryAppMappingsRequest`: the repository's complete new list of applications. */
export const replaceMappingsBody = schema(() =>
  z.object({
    orgId: z.optional(z.string()),
    repoId: z.optional(z.string()),
    /** Required: the whole new list (`[]` unmaps every application the caller may see). */
    appInfos: z
      .array(appInfo, { error: 'required: the complete list of applications, [] for none' })
      .check(z.maxLength(MAX_MAPPED_APPS, `at most ${MAX_MAPPED_APPS} applications`)),
  }),
);

/** `repository.AddApplicationToRepoRequest`: applications to create (by name) for repositories. */
export const createAppsForReposBody = schema(() =>
  z.object({
    orgId: z.optional(z.string()),
    newRepositoryApps: z
      .array(
        z.object({
          repoId: z.string().check(z.regex(UUID, 'must be a UUID')),
          appInfos: z
            .array(z.object({ name: applicationNameSchema.check(z.minLength(1, 'must not be empty')) }))
            .check(z.minLength(1, 'must name at least one application'), z.maxLength(20)),
        }),
      )
      .check(
        z.minLength(1, 'must name at least one repository'),
        z.maxLength(10, 'at most 10 repositories per request'),
      ),
  }),
);
export type CreateAppsForRepos = z.output<typeof createAppsForReposBody>;

export const REPO_SORT_FIELDS = [
  'id',
  'fullName',
  'lastCommit',
  'lastContributor',
  'lastScanTimeStamp',
  'stackHawkApplication',
  'score',
  'status',
  'commitCount',
  'sensitiveTagsCount',
] as const;
/** The public repository filters (repoFilter, appFilter, webAppFilter, uncoveredRepoFilter and the list `filters`). */
export const REPO_FILTERS = [
  'ALL_REPOS',
  'UNMAPPED_REPOS',
  'MAPPED_REPOS',
  'HIDDEN_REPOS',
  'REPOS_WITH_APP_SCANS',
  'REPOS_WITH_NO_APP_SCANS',
  'REPOS_WITH_INSIGHTS',
  'REPOS_WITH_NO_INSIGHTS',
  'WEB_APP_REPOS',
  'REPOS_IN_ATTACK_SURFACE',
  'REPOS_NOT_IN_ATTACK_SURFACE',
  'UNCOVERED_REPOS',
  'REPOS_WITH_RECENT_SCANS',
  'REPOS_WITH_GENERATED_OAS',
] as const;
export type RepoFilter = (typeof REPO_FILTERS)[number];
export const RECENT_COMMIT_TIMEFRAMES = [
  'LAST_COMMIT_DATE_UNSPECIFIED',
  'LAST_24_HOURS',
  'LAST_7_DAYS',
  'LAST_14_DAYS',
  'LAST_30_DAYS',
  'OVER_30_DAYS',
] as const;
const repoFilterParam = () => caseInsensitiveEnum(REPO_FILTERS);

export const listRepositoriesQuery = schema(() =>
  z.object({
    query: v2QueryParam('the repository name'),
    sortField: caseInsensitiveEnum(REPO_SORT_FIELDS),
    sortDir: caseInsensitiveEnum(['ASC', 'DESC', 'UNSORTED']),
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    page: v2PageParam(),
    repoFilter: repoFilterParam(),
    appFilter: repoFilterParam(),
    webAppFilter: repoFilterParam(),
    uncoveredRepoFilter: repoFilterParam(),
    filters: enumListParam(REPO_FILTERS),
    frameworkNames: listParam(z.string().check(z.maxLength(100))),
    repositorySource: enumListParam(REPO_SOURCES),
    recentCommitTimeframe: caseInsensitiveEnum(RECENT_COMMIT_TIMEFRAMES),
    langIds: uuidListParam(),
    topicIds: uuidListParam(),
    integrationIds: uuidListParam(),
    sensitiveDataTags: listParam(z.string().check(z.maxLength(100))),
  }),
);
export type ListRepositoriesQuery = z.output<typeof listRepositoriesQuery>;

export const listSensitiveDataQuery = schema(() =>
  z.object({
    sortField: caseInsensitiveEnum(['matchTerm', 'matchPattern', 'codeType', 'score']),
    sortDir: caseInsensitiveEnum(['ASC', 'DESC', 'UNSORTED']),
    page: v2PageParam(),
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    query: v2QueryParam('the match term'),
  }),
);
