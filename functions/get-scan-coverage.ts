import { operation } from '../shared/http/operation.ts';
import { getScanCoverageRoute } from '../shared/routes.ts';
import { scanCoverage } from '../shared/scans/coverage.ts';

export const handler = operation(getScanCoverageRoute, ({ caller, params }) => scanCoverage(caller, params.scanId));
