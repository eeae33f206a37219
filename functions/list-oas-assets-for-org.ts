import { operation } from '../shared/http/operation.ts';
import { listOASAssetsForOrgRoute } from '../shared/routes.ts';
import { listHostedDescriptions } from '../shared/hosted-assets/oas.ts';
import { v2PageRequest } from '../shared/lists.ts';

export const handler = operation(listOASAssetsForOrgRoute, ({ caller, params, query }) =>
  listHostedDescriptions(caller, params.orgId, {
    request: v2PageRequest(query.page, query.pageToken, query.pageSize),
    sortField: query.sortField ?? 'repoId',
    sortDir: query.sortDir === 'desc' ? 'DESC' : 'ASC',
    repoIds: query.repoIds,
  }),
);
