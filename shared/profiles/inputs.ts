import * as z from 'zod/mini';
import { limitParam, uuidSchema } from '../lists.ts';

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses. */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

// Request inputs of the profile scan operations (docs/PROFILE-SCANS.md). Kept free of storage imports so the route
// table stays light.

/**
 * The largest result an agent uploads: a result is a few KB (samples and lists are bounded below), plus the
 * discovered description it carries, JSON-escaped (the same room as a scan start's configuration).
 */
export const MAX_PROFILE_RESULT_BYTES = 4 * 1024 * 1024;
/** The discovered description's text: the prober reads at most 2 MB of an answer. */
export const MAX_DISCOVERED_DESCRIPTION_CHARS = 2 * 1024 * 1024;
export const MAX_BULK_APPLICATIONS = 100;

const text = (max: number) => z.string().check(z.maxLength(max, `must be at most ${max} characters`));
const texts = (count: number, max: number) => z._default(z.array(text(max)).check(z.maxLength(count)), []);
const count = () => z._default(z.number().check(z.int('must be an integer'), z.gte(0)), 0);
const samples = () =>
  z._default(
    z
      .array(z.object({ method: text(16), url: text(2048), authEvidence: z.optional(text(500)) }))
      .check(z.maxLength(10, 'must have at most 10 samples')),
    [],
  );
const assetCount = () =>
  z._default(z.object({ count: count(), totalSizeBytes: count(), sampleUrls: texts(10, 2048) }), {
    count: 0,
    totalSizeBytes: 0,
    sampleUrls: [],
  });

/** scanresults.ProfileScanResult as the agent sends it (and the fields of ours); scanId and timestamp are the service's. */
export const profileResultBody = schema(() =>
  z.object({
    classification: z.enum([
      'APP_SPA_WITH_AUTH',
      'APP_API_WITH_AUTH',
      'APP_PUBLIC_WEBSITE',
      'APP_STATIC_SITE',
      'APP_CLASSIFICATION_UNKNOWN',
    ]),
    score: z.enum(['TESTABILITY_HIGH', 'TESTABILITY_MEDIUM', 'TESTABILITY_LOW']),
    scoreReasons: texts(50, 1000),
    recommendations: texts(50, 32 * 1024),
    discoveredOpenapiSpecPath: z._default(text(2048), ''),
    authConfigPresent: z._default(z.boolean(), false),
    authMarkers: z._default(
      z
        .array(
          z.object({
            type: z.enum([
              'AUTH_LOGIN_FORM',
              'AUTH_REDIRECT_TO_AUTH',
              'AUTH_SESSION_COOKIE',
              'AUTH_OAUTH_ENDPOINT',
              'AUTH_WWW_AUTHENTICATE',
              'AUTH_PROTECTED_ENDPOINT',
            ]),
            confidence: z.enum(['AUTH_CONFIDENCE_LOW', 'AUTH_CONFIDENCE_MEDIUM', 'AUTH_CONFIDENCE_HIGH']),
            evidence: z._default(text(500), ''),
            signals: z._default(
              z
                .array(
                  z.object({
                    signalType: z.enum([
                      'SIGNAL_PATH_PATTERN',
                      'SIGNAL_STATUS_CODE_401_403',
                      'SIGNAL_REDIRECT_TO_AUTH',
                      'SIGNAL_LOGIN_FORM_DETECTED',
                      'SIGNAL_OAUTH_PROMPT',
                      'SIGNAL_SESSION_COOKIE',
                      'SIGNAL_WWW_AUTHENTICATE',
                      'SIGNAL_CSRF_TOKEN',
                    ]),
                    detail: z._default(text(500), ''),
                  }),
                )
                .check(z.maxLength(20)),
              [],
            ),
          }),
        )
        .check(z.maxLength(20)),
      [],
    ),
    paths: z.object({
      total: count(),
      staticCount: count(),
      dynamicCount: count(),
      authProtectedCount: count(),
      samplesStatic: samples(),
      samplesDynamic: samples(),
      samplesAuthProtected: samples(),
    }),
    assets: z.object({
      buildStrategy: z.enum([
        'BUILD_SINGLE_BUNDLE',
        'BUILD_VENDOR_APP_SPLIT',
        'BUILD_CODE_SPLIT_OPTIMIZED',
        'BUILD_STRATEGY_UNKNOWN',
      ]),
      optimizationNotes: texts(20, 500),
      totalAssets: count(),
      totalSizeBytes: count(),
      assetSummary: z.object({ scripts: assetCount(), staticMedia: assetCount(), dynamicContent: assetCount() }),
    }),
    suggestedScanConfig: z._default(text(32 * 1024), ''),
    requestsSent: count(),
    durationMs: count(),
    stoppedBy: z._default(z.enum(['', 'REQUEST_BUDGET', 'TIME_BUDGET']), ''),
    notes: texts(50, 500),
    /** The discovered description's text, validated and kept by the service (not stored in the result). */
    discoveredOpenapiSpec: z._default(text(MAX_DISCOVERED_DESCRIPTION_CHARS), ''),
  }),
);
export type ProfileResultBody = z.output<typeof profileResultBody>;

/** PUT .../perch/runs/{scanKey}/profile?deviceId=... */
export const profileResultQuery = schema(() => z.object({ deviceId: uuidSchema() }));

/** GET /api/v1/app/{appId}/profile/results/list?limit= */
export const listProfileResultsQuery = schema(() => z.object({ limit: limitParam(50, 10) }));

/** POST /api/v1/org/{orgId}/profile/results: com.stackhawk.falcon.controllers.BulkProfileScanResultsRequest. */
export const bulkProfileResultsBody = schema(() =>
  z.object({
    applicationIds: z
      .array(text(64))
      .check(
        z.minLength(1, 'must name at least one application'),
        z.maxLength(MAX_BULK_APPLICATIONS, `must name at most ${MAX_BULK_APPLICATIONS} applications`),
      ),
  }),
);
export type BulkProfileResultsBody = z.output<typeof bulkProfileResultsBody>;
