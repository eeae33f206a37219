import { operation } from '../shared/http/operation.ts';
import { listOASAssetsForOrgRoute } from '../shared/routes.ts';
import { listHostedDescriptions } from '../shared/hosted-assets/oas.ts';
import { v2PageRequest } from '../shared/lists.ts';

interface Query {
  pageSize: number;
  pageToken: number;
  page?: string;
  sortField?: 'repoId' | 'repoName';
  sortDir?: 'asc' | 'desc';
  repoIds: string[];
}

export const handler = operation<{ orgId: string }, Query>(listOASAssetsForOrgRoute, ({ caller, params, query }) =>
  listHostedDescriptions(caller, params.orgId, {
    request: v2PageRequest(query.page, query.pageToken, query.pageSize),
    sortField: query.sortField ?? 'repoId',
    sortDir: query.sortDir === 'desc' ? 'DESC' : 'ASC',
    repoIds: query.repoIds,
  }),
);
