import { operation } from '../shared/http/operation.ts';
import { listOrganizationFindingsRoute } from '../shared/routes.ts';
import { findingsReport } from '../shared/findings/report.ts';

export const handler = operation(listOrganizationFindingsRoute, ({ caller, params, query, mediaType }) =>
  findingsReport(caller, params.orgId, query, mediaType),
);
