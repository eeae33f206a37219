import * as z from 'zod/mini';
import {
  booleanParam,
  caseInsensitiveEnum,
  enumListParam,
  nameListParam,
  pageSizeParam,
  pageTokenParam,
  uuidListParam,
  v2PageParam,
  v2QueryParam,
  v2SortDirParam,
} from '../lists.ts';
import { UUID } from '../input/uuid.ts';
import { APPLICATION_TYPES, applicationNameSchema, environmentNameSchema, applicationTypesParam } from './model.ts';

// Request inputs of the application and environment operations (docs/API.md, Applications, Environments, Lists):
// the route table names these schemas, the domain modules take their outputs. Kept free of storage imports so the route
// table stays light.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

const uuid = () => z.string().check(z.regex(UUID, 'must be a UUID'));
const DATA_TYPES = ['NONE', 'PII', 'PCI', 'FIN', 'PKI', 'HIPAA', 'FERPA'] as const;
const RISK_LEVELS = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
const httpUrl = () => z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** The `host` of an environment's default scan configuration: the target's base URL. */
export const hostSchema = schema(() => z.union([httpUrl(), z.literal('')]));

/** Clients such as Terraform always send dataType and riskLevel, possibly empty: empty means unset. */
const optionalEnum = <T extends string>(values: readonly [T, ...T[]]) =>
  z.pipe(
    z.nullish(z.union([z.enum(values), z.literal('')])),
    z.transform((v) => v || undefined),
  );

/** application.NewApplicationRequest; unknown fields are ignored, nothing is required (docs/API.md, Applications). */
export const createApplicationBody = schema(() =>
  z.object({
    name: z.nullish(applicationNameSchema),
    env: z.nullish(z.union([environmentNameSchema, z.literal('')])),
    applicationType: z.nullish(z.enum(APPLICATION_TYPES)),
    cloudScanTargetURL: z.nullish(httpUrl()),
    dataType: optionalEnum(DATA_TYPES),
    riskLevel: optionalEnum(RISK_LEVELS),
    teamId: z.nullish(uuid()),
    host: z.nullish(hostSchema),
    organizationId: z.nullish(uuid()),
  }),
);
export type CreateApplicationBody = z.output<typeof createApplicationBody>;

/** application.UpdateApplicationRequest: only the name changes; the other fields are ignored. */
export const updateApplicationBody = schema(() => z.object({ name: applicationNameSchema }));

/** application.NewApplicationEnvRequest; applicationId and organizationId are read-only and ignored. */
export const createEnvironmentBody = schema(() => z.object({ env: environmentNameSchema }));
export const createEnvironmentQuery = schema(() =>
  z.object({
    host: z.optional(hostSchema).check(z.describe('Host URL of the default hosted scan configuration.')),
  }),
);
/** application.UpdateApplicationEnvRequest: only the name changes. */
export const updateEnvironmentBody = schema(() => z.object({ name: environmentNameSchema }));

export const APP_SORT_FIELDS = [
  'applicationId',
  'applicationName',
  'applicationStatus',
  'mappedRepositoryCount',
  'thirtyDayCommitActivity',
] as const;

/** listAppsV2 (docs/API.md, List Applications V2) */
export const listApplicationsV2Query = schema(() =>
  z.object({
    query: v2QueryParam('the application name'),
    sortField: z.optional(z.enum(APP_SORT_FIELDS, { error: `must be one of ${APP_SORT_FIELDS.join(', ')}` })),
    sortDir: v2SortDirParam(),
    page: v2PageParam(),
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    appIds: uuidListParam(),
    teamIds: uuidListParam(),
    applicationStatus: enumListParam(['ACTIVE', 'ENV_INCOMPLETE'] as const),
    applicationTypes: applicationTypesParam(),
  }),
);
export type ListApplicationsV2Query = z.output<typeof listApplicationsV2Query>;

/** listApplications, deprecated (docs/API.md, Deprecated lists) */
export const listApplicationsV1Query = schema(() =>
  z.object({
    appIds: uuidListParam(),
    envs: nameListParam(),
    teamIds: uuidListParam(),
    ignoreEnvs: booleanParam(false),
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    sortField: z.optional(z.enum(['name', 'id'], { error: 'must be name or id' })),
    sortDir: caseInsensitiveEnum(['asc', 'desc']),
  }),
);
export type ListApplicationsV1Query = z.output<typeof listApplicationsV1Query>;

export const ENV_SORT_FIELDS = [
  'environmentId',
  'environmentName',
  'applicationName',
  'scanDate',
  'scanDuration',
  'mappedRepositoryCount',
  'scanFindingsCounts',
  'thirtyDayCommitActivity',
  'flightpathLastUpdated',
] as const;
export const LAST_SCAN_STATUSES = [
  'LAST_SCAN_STATUS_UNSPECIFIED',
  'LAST_SCAN_STATUS_SUCCESS',
  'LAST_SCAN_STATUS_ERRORED',
  'LAST_SCAN_STATUS_IN_PROGRESS',
  'LAST_SCAN_STATUS_PENDING',
] as const;
const LAST_SCAN_DATES = [
  'LAST_SCAN_DATE_UNSPECIFIED',
  'LAST_24_HOURS',
  'LAST_7_DAYS',
  'LAST_14_DAYS',
  'LAST_30_DAYS',
  'OVER_30_DAYS',
] as const;

/** listEnvsV2 (docs/API.md, List Environments V2) */
export const listEnvironmentsV2Query = schema(() =>
  z.object({
    query: v2QueryParam('the application or environment name'),
    sortField: z.optional(z.enum(ENV_SORT_FIELDS, { error: `must be one of ${ENV_SORT_FIELDS.join(', ')}` })),
    sortDir: v2SortDirParam(),
    includeAppHealthStats: booleanParam(false),
    page: v2PageParam(),
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    appIds: uuidListParam(),
    envIds: uuidListParam(),
    teamIds: uuidListParam(),
    envs: nameListParam(),
    lastScanDate: caseInsensitiveEnum(LAST_SCAN_DATES),
    applicationTypes: applicationTypesParam(),
    lastScanStatus: enumListParam(LAST_SCAN_STATUSES),
    hasFlightpathSession: booleanParam(undefined),
  }),
);
export type ListEnvironmentsV2Query = z.output<typeof listEnvironmentsV2Query>;
