import { SEVERITIES } from '../input/severities.ts';
import * as z from 'zod/mini';
import {
  startNotAfterEnd,
  booleanParam,
  caseInsensitiveEnum,
  integerParam,
  listParam,
  nameListParam,
  pageSizeParam,
  pageTokenParam,
  PAST_EVERY_PAGE,
  uuidListParam,
} from '../lists.ts';
import { displayableText } from '../input/names.ts';
import { UUID } from '../input/uuid.ts';
import { FINDINGS_REPORT_LIMITS, MAX_DIFF_PAGE, MAX_PATTERN_LENGTH } from '../limits.ts';
import { applicationTypesParam, environmentNameSchema } from '../applications/model.ts';
import { REPORT_TOOLS } from '@hawk-api/scanner/reports';

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

const uuid = () => z.string().check(z.regex(UUID, 'must be a UUID'));

// Request inputs of the scan reporting and scan-result operations (docs/DATA-MODEL.md "Scans"). Kept free of
// storage imports so the route table stays light.

/** One finding's request and response are stored in one item, which DynamoDB caps at 400 KB. */
const MAX_MESSAGE_BYTES = 300_000;

const text = (max: number) => z._default(z.string().check(z.maxLength(max, `must be at most ${max} characters`)), '');

/** Plugin ids are ZAP/HawkScan plugin numbers such as "10038"; they become part of storage keys. */
export const pluginIdSchema = schema(() =>
  z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, _ . or -')),
);
/** Config hashes are the hex SHA-256 of the configuration text (any case accepted). */
export const configHashSchema = schema(() =>
  z.pipe(
    z.string().check(z.regex(/^[0-9a-fA-F]{64}$/, 'must be a SHA-256 hex digest')),
    z.transform((v) => v.toLowerCase()),
  ),
);

const alertUriSchema = schema(() =>
  z
    .object({
      uri: z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(8192, 'must be at most 8192 characters')),
      requestMethod: z.pipe(
        z.string().check(z.regex(/^[A-Za-z]{1,16}$/, 'must be an HTTP method')),
        z.transform((m) => m.toUpperCase()),
      ),
      param: text(4096),
      evidence: text(16_384),
      otherInfo: text(16_384),
      requestHeader: text(65_536),
      requestBody: text(MAX_MESSAGE_BYTES),
      responseHeader: text(65_536),
      responseBody: text(MAX_MESSAGE_BYTES),
    })
    .check(
      z.refine(
        (u) =>
          Buffer.byteLength(
            u.requestHeader + u.requestBody + u.responseHeader + u.responseBody + u.evidence + u.otherInfo,
          ) <= MAX_MESSAGE_BYTES,
        `request and response of one URI must total at most ${MAX_MESSAGE_BYTES} bytes`,
      ),
    ),
);
export type ReportedUri = z.output<typeof alertUriSchema>;

/** One alert of a findings report (also what an imported report's alerts must satisfy). */
export const reportedAlertSchema = schema(() =>
  z.object({
    pluginId: pluginIdSchema,
    name: z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(512), displayableText()),
    severity: z.enum(SEVERITIES, { error: `must be one of ${SEVERITIES.join(', ')}` }),
    description: text(65_536),
    cweId: text(32),
    references: z._default(z.array(z.string().check(z.maxLength(2048))).check(z.maxLength(100)), []),
    uris: z.array(alertUriSchema).check(z.minLength(1, 'must have at least one URI')),
  }),
);
export type ReportedAlert = z.output<typeof reportedAlertSchema>;

const { maxAlerts, maxUris } = FINDINGS_REPORT_LIMITS;

/** POST /api/v1/scan/{scanId}/alerts: one batch of findings (the same pluginId may come again in later batches). */
export const scanAlertsBody = schema(() =>
  z
    .object({
      alerts: z
        .array(reportedAlertSchema)
        .check(
          z.minLength(1, 'must have at least one alert'),
          z.maxLength(
            maxAlerts,
            `must have at most ${maxAlerts} alerts in one request (send more in further requests)`,
          ),
        ),
      /**
       * Makes the report idempotent: a report whose id the scan has counted already is not counted again (answered
       * with alreadyCounted), so a client may resend a report whose answer it lost.
       */
      reportId: z.optional(
        z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -')),
      ),
    })
    .check(
      z.refine((b) => b.alerts.reduce((n, a) => n + a.uris.length, 0) <= maxUris, {
        message: `must carry at most ${maxUris} URIs in one request (send more in further requests)`,
        path: ['alerts'],
      }),
    ),
);
export type ScanAlertsBody = z.output<typeof scanAlertsBody>;

/** POST /api/v1/scan/{scanId}/complete */
export const scanCompletedBody = schema(() =>
  z.object({
    status: z.enum(['COMPLETED', 'ERROR'], { error: 'must be COMPLETED or ERROR' }),
    // z.int as a check: z.int('must be an integer') as the schema would give a non-number that message too.
    urlCount: z._default(z.number().check(z.int('must be an integer'), z.gte(0), z.lte(2_147_483_647)), 0),
  }),
);
export type ScanCompletedBody = z.output<typeof scanCompletedBody>;

/**
 * POST /api/v1/app/{appId}/scan/import: the environment the imported scan is of (created when new), and the tool
 * whose report it is when its content alone does not say (docs/IMPORTS.md, Recognising a report).
 */
export const importScanQuery = schema(() =>
  z.object({ env: environmentNameSchema, format: caseInsensitiveEnum(REPORT_TOOLS) }),
);
/** A report's content types (its tool is recognised from the content; `text/*` for curl --data-binary and CI tools). */
export const IMPORT_CONTENT_TYPES = [
  'application/xml',
  'application/json',
  'application/sarif+json',
  'application/x-ndjson',
  'application/jsonl',
  'text/*',
];

// ---- Reads

/** Scan `tag` filter: `name:value`, `|` between alternatives, `*` wildcards; repeated parameters must all match. */
const tagFilterParam = () =>
  listParam(
    z
      .string()
      .check(
        z.regex(/^[^:]+:.*$/, 'must be name:value'),
        z.maxLength(MAX_PATTERN_LENGTH, `must be at most ${MAX_PATTERN_LENGTH} characters`),
      ),
  ).check(
    z.describe(`\`name:value\`; \`|\` = or, \`*\` = wildcard; each filter at most ${MAX_PATTERN_LENGTH} characters.`),
  );

/** GET /api/v1/scan/{orgId} */
export const listScansQuery = schema(() =>
  z
    .object({
      appIds: uuidListParam(),
      envs: nameListParam(),
      teamIds: uuidListParam(),
      start: z
        .pipe(integerParam(), z.number().check(z.lte(Number.MAX_SAFE_INTEGER, 'must be a time in ms')))
        .check(z.describe('Scans started at or after (ms).')),
      end: z
        .pipe(integerParam(), z.number().check(z.lte(Number.MAX_SAFE_INTEGER, 'must be a time in ms')))
        .check(z.describe('Scans started at or before (ms; 0: no bound).')),
      pageSize: pageSizeParam(),
      pageToken: pageTokenParam(),
      sortField: z.optional(z.enum(['id', 'name'], { error: 'must be id or name' })),
      sortDir: caseInsensitiveEnum(['asc', 'desc']),
      applicationTypes: applicationTypesParam(),
      tag: tagFilterParam(),
    })
    .check(startNotAfterEnd()),
);
export type ListScansQuery = z.output<typeof listScansQuery>;

/** GET /api/v1/scan/{scanId}/alerts */
export const listScanAlertsQuery = schema(() =>
  z.object({
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    sortField: z.optional(z.enum(['id', 'name'], { error: 'must be id or name' })),
    sortDir: caseInsensitiveEnum(['asc', 'desc']),
  }),
);
export type ListScanAlertsQuery = z.output<typeof listScanAlertsQuery>;

/** GET /api/v1/scan/{scanId}/alert/{pluginId}: pageSize above 100 is reduced to 100, as the public API does. */
export const listAlertFindingsQuery = schema(() =>
  z.object({
    pageSize: z.pipe(
      pageSizeParam(),
      z.transform((n) => Math.min(n, 100)),
    ),
    pageToken: pageTokenParam(),
  }),
);
export type ListAlertFindingsQuery = z.output<typeof listAlertFindingsQuery>;

export const alertMessageQuery = schema(() => z.object({ includeValidationCommand: booleanParam(false) }));
export type AlertMessageQuery = z.output<typeof alertMessageQuery>;

/** A file path relative to the repository's root (`api/openapi.yaml`), as GitHub code scanning places alerts. */
const repositoryPath = () =>
  z
    .string()
    .check(
      z.regex(
        /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[\w.@+-]+(\/[\w.@+-]+)*$/,
        'must be a relative path in the repository (letters, digits, . _ - @ + and /, no . or .. segments)',
      ),
      z.maxLength(300),
    );

/** GET /api/v1/scan/{scanId}/diff (docs/DATA-MODEL.md, Scan diffs). */
export const scanDiffQuery = schema(() =>
  z.object({
    against: z
      .optional(z.string().check(z.regex(UUID, 'must be a scan id (a UUID)')))
      .check(
        z.describe(
          'The scan to compare with, of the same environment; default: the previous completed scan of the same tool stream.',
        ),
      ),
    pageSize: pageSizeParam(MAX_DIFF_PAGE, MAX_DIFF_PAGE),
    pageToken: z
      .pipe(integerParam(0), z.number().check(z.lte(PAST_EVERY_PAGE, `must be at most ${PAST_EVERY_PAGE}`)))
      .check(
        z.describe(
          "The previous page's nextPageToken (the offset of the page's first entry across the sets; default 0), an int32 as the public API's page tokens.",
        ),
      ),
  }),
);
export type ScanDiffQuery = z.output<typeof scanDiffQuery>;

/** GET /api/v1/scan/{scanId}/sarif (docs/SARIF-EXPORT.md). */
export const scanSarifQuery = schema(() =>
  z.object({
    part: z
      .pipe(integerParam(1), z.number().check(z.gte(1, 'must be 1 or more')))
      .check(
        z.describe('Which part of a log split for GitHub (1-based, default 1); every part says how many there are.'),
      ),
    oasPath: z
      .optional(repositoryPath())
      .check(
        z.describe(
          "Path of the application's OpenAPI description in the repository (default openapi.yaml or openapi.json).",
        ),
      ),
    configPath: z
      .optional(repositoryPath())
      .check(z.describe('Path of the scan configuration in the repository (default stackhawk.yml).')),
  }),
);
export type ScanSarifQuery = z.output<typeof scanSarifQuery>;

// ---- Scan secrets (docs/HOSTED-SCANS.md, "Scan secrets")

/** A secret's name is a `${NAME}` a configuration references: an environment variable's name. */
export const MAX_SCAN_SECRET_NAME = 128;
export const MAX_SCAN_SECRET_VALUE = 8192;
/** Secrets per application, and per organization. */
export const MAX_SCAN_SECRETS = 100;

export const scanSecretParams = schema(() =>
  z.object({
    name: z
      .string()
      .check(
        z.regex(
          /^[A-Za-z_][A-Za-z0-9_]*$/,
          'must be a variable name: letters, digits and _, not starting with a digit',
        ),
        z.maxLength(MAX_SCAN_SECRET_NAME, `must be at most ${MAX_SCAN_SECRET_NAME} characters`),
      ),
  }),
);

export const scanSecretBody = schema(() =>
  z.strictObject({
    value: z
      .string()
      .check(
        z.minLength(1, 'must not be empty'),
        z.maxLength(MAX_SCAN_SECRET_VALUE, `must be at most ${MAX_SCAN_SECRET_VALUE} characters`),
      ),
  }),
);
export type ScanSecretBody = z.infer<typeof scanSecretBody>;

/** `application.CreateApplicationConfigRequest`: `conf` is a HawkScan configuration as a JSON object. */
export const createEnvironmentDefaultConfigBody = schema(() =>
  z.object({
    applicationId: z.optional(uuid()),
    envId: z.optional(uuid()),
    isDefault: z.optional(z.boolean()),
    conf: z.record(z.string(), z.unknown(), {
      error: 'required: the HawkScan configuration, a JSON object such as {"app": {...}}',
    }),
  }),
);

export type CreateEnvironmentDefaultConfig = z.output<typeof createEnvironmentDefaultConfigBody>;

/** listEnvironments, deprecated (docs/API.md, Deprecated lists) */
export const listEnvironmentsV1Query = schema(() =>
  z.object({
    envs: nameListParam(),
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    sortField: z.optional(z.enum(['id', 'name'], { error: 'must be id or name' })),
    sortDir: caseInsensitiveEnum(['asc', 'desc']),
  }),
);

export type ListEnvironmentsV1Query = z.output<typeof listEnvironmentsV1Query>;
