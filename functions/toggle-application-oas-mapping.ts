import { operation } from '../shared/http/operation.ts';
import { toggleApplicationOASMappingRoute } from '../shared/routes.ts';
import { toggleMapping } from '../shared/hosted-assets/oas.ts';
import type { MappingRequest } from '../shared/hosted-assets/inputs.ts';

export const handler = operation<{ appId: string }, Record<string, never>, MappingRequest>(
  toggleApplicationOASMappingRoute,
  ({ caller, params, body }) => toggleMapping(caller, params.appId, body),
);
