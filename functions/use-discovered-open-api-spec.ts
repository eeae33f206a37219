import { operation } from '../shared/http/operation.ts';
import { useDiscoveredOpenApiSpecRoute } from '../shared/routes.ts';
import { useDiscoveredOpenApiSpec } from '../shared/profiles/use-spec.ts';

export const handler = operation(useDiscoveredOpenApiSpecRoute, ({ caller, params }) =>
  useDiscoveredOpenApiSpec(caller, params.appId, params.scanId),
);
