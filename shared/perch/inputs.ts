import * as z from 'zod/mini';
import { uuidSchema } from '../lists.ts';
import { environmentNameSchema } from '../applications/model.ts';
import { findingHashSchema } from '../input/finding-hash.ts';

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses. */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

// Request inputs of the hosted-scan operations (docs/HOSTED-SCANS.md). Kept free of storage imports so the route
// table stays light. Real clients send command strings outside the public enum (`START`, `STOP`) and fields the
// public description does not list: bodies are loose objects, and unknown fields are ignored.

/** The largest scan configuration a start command carries (kept in the run's item, well under DynamoDB's 400 KB). */
export const MAX_RUN_CONFIG_BYTES = 128 * 1024;
/** The largest run log kept (the agent sends its whole log, cut in the middle beyond this). */
export const MAX_RUN_LOG_BYTES = 1024 * 1024;

const commandSchema = schema(() =>
  z.object({
    command: z.optional(z.string().check(z.maxLength(64, 'must be at most 64 characters'))),
    config: z.optional(
      z.string().check(
        z.maxLength(MAX_RUN_CONFIG_BYTES, `must be at most ${MAX_RUN_CONFIG_BYTES} characters`),
        z.refine(
          (text) => Buffer.byteLength(text) <= MAX_RUN_CONFIG_BYTES,
          `must be at most ${MAX_RUN_CONFIG_BYTES} bytes`,
        ),
      ),
    ),
  }),
);

/** POST /api/v1/app/{appId}/perch/start and /stop: perch.PerchCommandRequest, plus hawkop's `scanConfig` and `env`. */
export const perchCommandBody = schema(() =>
  z.object({
    command: z._default(commandSchema, {}),
    // Unknown fields are ignored, as in the public API's bodies (docs/API.md, Errors), but a configuration put here
    // rather than in `command.config` is refused: dropped, the scan would run with another configuration (one that
    // may not leave the configuration's excluded paths alone).
    config: z.optional(z.never('a scan configuration belongs in command.config, not beside command')),
    /** hawkop: the name of an organization scan configuration to scan with. */
    scanConfig: z.optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(255))),
    /** Ours: scan with the default configuration of the environment `env` (createEnvironmentDefaultConfig). */
    defaultConfig: z.optional(z.boolean('must be true or false')),
    env: z.optional(environmentNameSchema),
    id: z.optional(z.string().check(z.maxLength(255))),
    name: z.optional(z.string().check(z.maxLength(255))),
  }),
);
export type PerchCommandBody = z.output<typeof perchCommandBody>;

const filterSchema = schema(() =>
  z.object({
    name: z._default(z.string().check(z.maxLength(64)), ''),
    value: z.optional(z.string().check(z.maxLength(100 * 40))),
    multi: z.optional(
      z.object({ values: z._default(z.array(z.string().check(z.maxLength(64))).check(z.maxLength(100)), []) }),
    ),
  }),
);

/** POST /api/v1/org/{orgId}/perch/status: perch.SearchDevicesRequest, the application ids in `page.filters`. */
export const searchDevicesBody = schema(() =>
  z.object({
    page: z._default(
      z.object({
        filters: z._default(z.array(filterSchema).check(z.maxLength(20, 'must have at most 20 filters')), []),
      }),
      { filters: [] },
    ),
  }),
);
export type SearchDevicesBody = z.output<typeof searchDevicesBody>;

const deviceNameSchema = schema(() =>
  z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(128, 'must be at most 128 characters'),
      z.regex(/^[\x20-\x7e]+$/, 'must be printable ASCII'),
    ),
);

// ---- Agent pools (docs/HOSTED-SCANS.md, Agent pools): labels `key=value`, compared exactly.

/** The most labels an agent carries, and the most an application may require. */
export const MAX_AGENT_LABELS = 20;
export const MAX_REQUIRED_LABELS = 10;
/** The most agent pools an organization gives its teams. */
export const MAX_AGENT_POOLS = 100;

const LABEL_PART = '[A-Za-z0-9][A-Za-z0-9._-]{0,62}';
const agentLabelSchema = () =>
  z
    .string()
    .check(
      z.regex(
        new RegExp(`^${LABEL_PART}=${LABEL_PART}$`),
        'must be a label key=value (letters, digits, . _ -; each side 1 to 63 characters)',
      ),
    );

/** A set of labels: each key once (an agent is in one place per key), answered sorted. */
const agentLabelsSchema = (max: number) =>
  z.pipe(
    z.array(agentLabelSchema()).check(
      z.maxLength(max, `must have at most ${max} labels`),
      z.refine(
        (labels) => new Set(labels.map((label) => label.split('=')[0])).size === labels.length,
        'must name each key once',
      ),
    ),
    z.transform((labels) => [...labels].sort()),
  );

/** PUT /api/v1/app/{appId}/perch/settings: the labels an agent must carry to take the application's runs. */
export const hostedScanSettingsBody = schema(() =>
  z.strictObject({ requiredLabels: agentLabelsSchema(MAX_REQUIRED_LABELS) }),
);
export type HostedScanSettingsBody = z.output<typeof hostedScanSettingsBody>;

/** PUT /api/v1/org/{orgId}/perch/pools: every pool of the organization, each a label only its team may require. */
export const agentPoolsBody = schema(() =>
  z.strictObject({
    pools: z.array(z.strictObject({ label: agentLabelSchema(), teamId: uuidSchema() })).check(
      z.maxLength(MAX_AGENT_POOLS, `must have at most ${MAX_AGENT_POOLS} pools`),
      z.refine(
        (pools) => new Set(pools.map((pool) => pool.label)).size === pools.length,
        "must name each label once (a pool is one team's)",
      ),
    ),
  }),
);
export type AgentPoolsBody = z.output<typeof agentPoolsBody>;

/** POST /api/v1/org/{orgId}/perch/devices: an agent registers (again, with the id it was given). */
export const registerDeviceBody = schema(() =>
  z.object({
    name: deviceNameSchema,
    /** Where it runs (`hawk-scanner agent --labels net=internal,region=eu`): it takes the runs requiring them. */
    labels: z._default(agentLabelsSchema(MAX_AGENT_LABELS), []),
    deviceId: z.optional(uuidSchema()),
    engines: z._default(
      z.array(z.string().check(z.regex(/^[a-z0-9-]{1,32}$/, 'must be an engine name'))).check(z.maxLength(8)),
      [],
    ),
    version: z._default(z.string().check(z.maxLength(64)), ''),
  }),
);
export type RegisterDeviceBody = z.output<typeof registerDeviceBody>;

/** POST .../devices/{deviceId}/poll: wait up to `waitSeconds` for a command (the service caps it under 29 s). */
export const pollBody = schema(() =>
  z.object({
    waitSeconds: z._default(z.number().check(z.int('must be an integer'), z.gte(0), z.lte(25)), 20),
    /** The run the agent is carrying: the poll answers SCAN_STOP once it is no longer the agent's to carry. */
    running: z.optional(z.object({ applicationId: uuidSchema(), scanKey: uuidSchema() })),
  }),
);
export type PollBody = z.output<typeof pollBody>;

export const scanKeyParams = schema(() => z.object({ scanKey: uuidSchema() }));

export const RUN_ERROR_TYPES = ['UNKNOWN', 'AUTHENTICATION', 'PROVISIONING', 'DEVICE'] as const;

/**
 * What the agent is doing (`started`, `login`, `attack`, ...): free text from the agent, in lower-case words. Empty is
 * refused, as the perch routes refuse their other empty values, rather than stored as a phase.
 */
const runPhaseSchema = schema(() =>
  z
    .string()
    .check(z.minLength(1, 'must not be empty'), z.maxLength(64), z.regex(/^[a-z0-9 -]*$/, 'must be lower-case words')),
);

/** Why a run ended in ERROR, with what to do. */
const runErrorSchema = schema(() =>
  z.object({
    errorType: z.enum(RUN_ERROR_TYPES, { error: `must be one of ${RUN_ERROR_TYPES.join(', ')}` }),
    message: z.string().check(z.minLength(1), z.maxLength(2000, 'must be at most 2000 characters')),
  }),
);

/** POST /api/v1/app/{appId}/perch/runs/{scanKey}: the agent running it reports its progress or its end. */
export const runUpdateBody = schema(() =>
  z.object({
    deviceId: uuidSchema(),
    state: z._default(
      z.enum(['RUNNING', 'COMPLETED', 'ERROR'], { error: 'must be RUNNING, COMPLETED or ERROR' }),
      'RUNNING',
    ),
    phase: z.optional(runPhaseSchema),
    scanId: z.optional(uuidSchema()),
    error: z.optional(runErrorSchema),
  }),
);
export type RunUpdateBody = z.output<typeof runUpdateBody>;

/**
 * The largest endScanRun body: the log (at most MAX_RUN_LOG_BYTES) JSON-escaped (a control character takes six
 * bytes, a quote two), with the end's few fields.
 */
export const RUN_END_BODY_BYTES = 4 * 1024 * 1024;

const count = () => z.number().check(z.int('must be an integer'), z.gte(0), z.lte(2_147_483_647));

/** The values of a coverage record's `verdict` (shared/scans/coverage.ts stores it). */
const COVERAGE_VERDICTS = ['COMPLETE', 'PARTIAL', 'AUTH_DEGRADED', 'LOW_COVERAGE'] as const;

/** The authorization phase's figures (docs/SCANNER-AUTH.md, Authorization testing). */
const authorizationCoverageSchema = schema(() =>
  z.strictObject({
    candidates: count(),
    users: z
      .array(
        z.strictObject({
          name: z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be a user name (letters, digits, _ . -)')),
          replayed: count(),
        }),
      )
      .check(z.maxLength(10, 'must list at most 10 users')),
    unauthenticatedReplayed: count(),
    skippedUnsafe: count(),
    excluded: count(),
    findings: count(),
    cutBy: z.enum(['', 'REQUEST_BUDGET', 'DEADLINE'], { error: 'must be empty, REQUEST_BUDGET or DEADLINE' }),
    durationSeconds: count(),
  }),
);

/** The run's coverage record (docs/HOSTED-SCANS.md, Coverage): the agent's own report, no field it does not know. */
const runCoverageSchema = schema(() =>
  z.strictObject({
    pages: count(),
    forms: count(),
    requests: count(),
    authenticatedRequests: count(),
    relogins: count(),
    modules: z
      .array(
        z.strictObject({
          name: z.string().check(z.regex(/^[a-z0-9_.-]{1,64}$/, 'must be a module name (a-z, 0-9, _ . -)')),
          requests: count(),
          findings: count(),
          cutAtTimeLimit: z.boolean(),
        }),
      )
      .check(z.maxLength(100, 'must list at most 100 modules')),
    durationSeconds: count(),
    deadlineSeconds: count(),
    verdict: z.enum(COVERAGE_VERDICTS, { error: `must be one of ${COVERAGE_VERDICTS.join(', ')}` }),
    reasons: z
      .array(z.string().check(z.maxLength(1000, 'must be at most 1000 characters')))
      .check(z.maxLength(50, 'must list at most 50 reasons')),
    authorization: z.optional(authorizationCoverageSchema),
  }),
);

/** What a retest's engine found of its finding's kind: the service tells its finding among them. */
const retestFoundSchema = schema(() =>
  z.strictObject({
    found: z
      .array(
        z.strictObject({
          pluginId: z.string().check(z.maxLength(255)),
          method: z.string().check(z.maxLength(16)),
          uri: z.string().check(z.maxLength(4096)),
          param: z.string().check(z.maxLength(1024)),
          evidence: z.string().check(z.maxLength(4000, 'must be at most 4000 characters')),
        }),
      )
      .check(z.maxLength(100, 'must list at most 100 findings')),
  }),
);

/** POST /api/v1/app/{appId}/perch/runs/{scanKey}/end?deviceId=...: the run's end, with its whole log. */
export const runEndBody = schema(() =>
  z.object({
    /** A retest run's findings (docs/HOSTED-SCANS.md, Retests): required when it completes. */
    retest: z.optional(retestFoundSchema),
    /** Its coverage record; `urlCount` is then its pages. */
    coverage: z.optional(runCoverageSchema),
    state: z.enum(['COMPLETED', 'ERROR'], { error: 'must be COMPLETED or ERROR' }),
    error: z.optional(runErrorSchema),
    urlCount: z._default(z.number().check(z.int('must be an integer'), z.gte(0), z.lte(2_147_483_647)), 0),
    log: z
      .string()
      .check(
        z.refine((text) => Buffer.byteLength(text) <= MAX_RUN_LOG_BYTES, `must be at most ${MAX_RUN_LOG_BYTES} bytes`),
      ),
  }),
);
export type RunEndBody = z.output<typeof runEndBody>;

/**
 * POST /api/v1/app/{appId}/perch/runs/{scanKey}/scan?deviceId=...&phase=...: the run's side of the announcement
 * (the carrying device and the phase it reached); the body is reportScanStarted's.
 */
export const runScanStartedQuery = schema(() =>
  z.object({ deviceId: uuidSchema(), phase: z.optional(runPhaseSchema) }),
);
export type RunScanStartedQuery = z.output<typeof runScanStartedQuery>;

/** PUT .../runs/{scanKey}/log?deviceId=... */
export const runLogQuery = schema(() => z.object({ deviceId: uuidSchema() }));

/** GET /api/v1/app/{appId}/perch/log?scanKey=...: the current run's log unless a run is named. */
export const readRunLogQuery = schema(() => z.object({ scanKey: z.optional(uuidSchema()) }));

/** POST /api/v1/app/{appId}/findings/{findingHash}/retest?env=...: the finding, and its environment by name. */
export const retestParams = schema(() => z.object({ findingHash: findingHashSchema }));
export const retestQuery = schema(() => z.object({ env: environmentNameSchema }));
