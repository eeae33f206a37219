// What one request may ask of the service: the bounds that keep every request's time and memory bounded whoever
// sends it (docs/COMPATIBILITY.md "Limits"; each route's OpenAPI description quotes those it applies). Kept free of
// imports so any operation (and the route table) can name them.

/** `*` patterns (team `search`, scan `tag` filters): longest accepted pattern, in characters. */
export const MAX_PATTERN_LENGTH = 255;

/**
 * Distinct values of one list filter (`appIds`, `envs`, `teamIds`...): each may cost a read (an environment name is
 * looked up in every application), so their number bounds a list request's DynamoDB calls.
 */
export const MAX_LIST_FILTER_VALUES = 100;

/** YAML and JSON documents the service parses (scan configurations, API descriptions). */
export const DOCUMENT_LIMITS = {
  /** Nesting of collections (mappings, sequences, objects, arrays). */
  maxDepth: 64,
  /** Aliases (`*name`) in one YAML document; expanding them is bounded by yaml's maxAliasCount as well. */
  maxAliases: 100,
} as const;

/** A reported scan configuration (POST /api/v1/app/{appId}/scan `config`). */
export const SCAN_CONFIG_LIMITS = { ...DOCUMENT_LIMITS, maxBytes: 1_000_000, maxNodes: 50_000 } as const;

/**
 * An uploaded API description (POST /api/v1/oas/{appId}/upload). Validation costs about 40-200 us per node once
 * `$ref`s are expanded for most shapes (bench: hostile; busy machine), but more for some (thousands of parameters
 * of one operation): the limits keep it small, DESCRIPTION_VALIDATION bounds it. maxNodes counts keys and values of
 * the text as written.
 */
export const DESCRIPTION_LIMITS = {
  ...DOCUMENT_LIMITS,
  maxBytes: 4 * 1024 * 1024,
  maxNodes: 100_000,
  maxExpandedNodes: 40_000,
} as const;

/**
 * Validating an uploaded description runs in a worker thread stopped after timeoutMs or when its heap passes
 * maxHeapMb (413): the input limits above do not bound every shape (bench: hostile, e.g. one operation with 7,900
 * parameters took 22 s), and the worker's limits do, whatever the shape.
 */
export const DESCRIPTION_VALIDATION = { timeoutMs: 10_000, maxHeapMb: 256 } as const;

/**
 * A scan diff's page (docs/DATA-MODEL.md, Scan diffs): at most this many entries (and by default), and it ends once
 * its entries reach MAX_DIFF_PAGE_BYTES of JSON, so an answer stays below Lambda's 6 MB however large the scans and
 * their URIs. Two scans of 10,000 findings (11,000 entries, 2.9 MB) are one page.
 */
export const MAX_DIFF_PAGE = 20_000;
export const MAX_DIFF_PAGE_BYTES = 4 * 1024 * 1024;

/** A findings report's body size in bytes (a constant of its own: the route table names it). */
export const FINDINGS_REPORT_BODY_BYTES = 4 * 1024 * 1024;

/**
 * One findings report (POST /api/v1/scan/{scanId}/alerts and any operation importing findings): all of it is
 * counted in one DynamoDB transaction (one item per alert plus the scan), so a request is counted whole or not at
 * all, and it completes well inside the 29 s Lambda timeout.
 */
export const FINDINGS_REPORT_LIMITS = {
  /** Alerts (plugins) in one request; one transaction counts them all with the scan (DynamoDB: 100 items). */
  maxAlerts: 50,
  /** URIs (findings) in one request, over all its alerts. */
  maxUris: 2_000,
  /** The request body's size in bytes. */
  maxBytes: FINDINGS_REPORT_BODY_BYTES,
  /**
   * Storing a report that takes longer (a busy service) is abandoned before anything is counted, and answered 413
   * (send smaller reports), instead of being counted after its client was answered by a timeout.
   */
  storeBudgetMs: 20_000,
  /** Reports one alert may receive over a scan (each is one entry of the alert's committed ranges). */
  maxReportsPerAlert: 5_000,
} as const;

/** A scan start's JSON body: its `config` (up to maxBytes characters, JSON-escaped) and a few small fields. */
export const SCAN_START_BODY_BYTES = 4 * 1024 * 1024;

/** JSON request bodies of every other operation. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;
/** Nesting of a JSON request body: every operation refuses deeper bodies, whatever fields its schema reads. */
export const MAX_JSON_BODY_DEPTH = DOCUMENT_LIMITS.maxDepth;

/** An imported report's body size in bytes (a constant of its own: the route table names it). */
export const IMPORT_BODY_BYTES = 4 * 1024 * 1024;

/**
 * One imported scanner report (POST /api/v1/app/{appId}/scan/import): the raw report as one request body, which
 * API Gateway may base64-encode (a third larger) within Lambda's 6 MB event, and the findings it stores before one
 * transaction publishes them. `budgetMs` covers the whole request up to that transaction (reading the report,
 * storing, the completion's reads and finding records): past it the import stops and removes what it wrote, which
 * the rest of the 29 s Lambda and API Gateway limit leaves time for. Larger reports go through the CLI, which sends
 * them as findings reports (npm run scanner -- import).
 */
export const IMPORT_LIMITS = {
  maxBytes: IMPORT_BODY_BYTES,
  /** Alert URIs (ZAP instances) once duplicates are merged. */
  maxUris: 10_000,
  /** Alerts (plugins and their variants). */
  maxAlerts: 1_000,
  budgetMs: 20_000,
  /**
   * How long after the budget the answer may come, removal included (28 s in all, inside the 29 s): storing stops
   * early when removing what was written would not fit in it.
   */
  removalAllowanceMs: 8_000,
  /**
   * BatchWriteItem calls in flight at once while an import writes (and removes) its items: past this DynamoDB Local
   * on the bench machine only queues them, and on AWS a new table's partitions take it easily (on-demand).
   */
  writeConcurrency: 8,
} as const;

/** Minutes between two runs of the risk acceptance expiry check on AWS (its EventBridge schedule; docs/GOVERNANCE.md). */
export const RISK_EXPIRY_CHECK_MINUTES = 1;
/** Minutes between two runs of the overdue check on AWS (its EventBridge schedule; docs/GOVERNANCE.md). */
export const OVERDUE_CHECK_MINUTES = 1;

/**
 * How long after it started a request that writes finding records before publishing its scan (an import, a scan's
 * completion) is taken for dead if its pending write is still there (Lambda stops every function at 29 s): the next
 * import or completion in the application then sweeps what it left (docs/DATA-MODEL.md, Findings).
 */
export const PENDING_WRITE_EXPIRY_MS = 120_000;

/**
 * How long an import or a scan's completion spends sweeping what stopped requests left (above) before its own work:
 * a sweep cut there is resumed by the next request.
 */
export const PENDING_SWEEP_MS = 5_000;

/**
 * The scheduled sweep of what stopped requests left in applications no later request visits (sweepStoppedWrites):
 * how often it runs (an EventBridge schedule on AWS, a timer in `npm start`) and how many applications one run
 * visits (the next run takes the rest).
 */
export const STOPPED_WRITES_SWEEP_MINUTES = 5;
export const MAX_SWEPT_APPLICATIONS = 100;
