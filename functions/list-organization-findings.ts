import { operation } from '../shared/http/operation.ts';
import { listOrganizationFindingsRoute } from '../shared/routes.ts';
import { findingsReport } from '../shared/findings/report.ts';
import type { FindingsReportQuery } from '../shared/findings/inputs.ts';

export const handler = operation<{ orgId: string }, FindingsReportQuery>(
  listOrganizationFindingsRoute,
  ({ caller, params, query, mediaType }) => findingsReport(caller, params.orgId, query, mediaType),
);
