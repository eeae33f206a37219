// A hosted run's coverage record as endScanRun takes it (docs/HOSTED-SCANS.md, Coverage): its schema in
// openapi.json, generated into schema.gen.ts. Below the modules that build its parts (run-coverage.ts the record,
// authorization.ts the authorization phase's figures), so that they share it without importing one another.
import type { Request } from '../api/call.ts';

/** The record as endScanRun takes it. */
export type RunCoverage = NonNullable<
  NonNullable<Request<'POST', '/api/v1/app/{appId}/perch/runs/{scanKey}/end'>['body']>['coverage']
>;

/** The authorization phase's figures in the record (replayed requests per user; authorization.ts). */
export type AuthorizationCoverage = NonNullable<RunCoverage['authorization']>;
