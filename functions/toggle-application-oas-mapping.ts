import { operation } from '../shared/http/operation.ts';
import { toggleMapping } from '../shared/oas.ts';
import type { MappingRequest } from '../shared/hosted-asset-inputs.ts';

export const handler = operation<{ appId: string }, Record<string, never>, MappingRequest>('toggleApplicationOASMapping', ({ caller, params, body }) =>
  toggleMapping(caller, params.appId, body),
);
