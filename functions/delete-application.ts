import { operation } from '../shared/http/operation.ts';
import { deleteApplicationRoute } from '../shared/routes.ts';
import { deleteApplication } from '../shared/deletions/deletions.ts';

export const handler = operation(deleteApplicationRoute, ({ caller, params }) =>
  deleteApplication(caller, params.appId),
);
