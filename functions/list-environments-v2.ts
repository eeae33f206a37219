import { operation } from '../shared/http/operation.ts';
import type { ListEnvironmentsV2Query } from '../shared/application-inputs.ts';
import { listEnvironmentsV2 } from '../shared/environments.ts';

export const handler = operation<{ orgId: string }, ListEnvironmentsV2Query>('listEnvsV2', ({ caller, params, query }) =>
  listEnvironmentsV2(caller, params.orgId, query),
);
