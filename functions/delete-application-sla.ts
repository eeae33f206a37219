import { operation } from '../shared/http/operation.ts';
import { deleteApplicationSlaRoute } from '../shared/routes.ts';
import { deleteApplicationSla } from '../shared/governance/overrides.ts';

export const handler = operation(deleteApplicationSlaRoute, ({ caller, params }) =>
  deleteApplicationSla(caller, params.appId),
);
