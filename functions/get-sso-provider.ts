import { operation } from '../shared/http/operation.ts';
import { getSsoProviderRoute } from '../shared/routes.ts';
import { getSsoProviderView } from '../shared/sso/configuration.ts';

export const handler = operation(getSsoProviderRoute, ({ params }) => getSsoProviderView(params.orgId));
