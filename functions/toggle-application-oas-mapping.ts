import { operation } from '../shared/http/operation.ts';
import { toggleMapping } from '../shared/hosted-assets/oas.ts';
import type { MappingRequest } from '../shared/hosted-assets/inputs.ts';

export const handler = operation<{ appId: string }, Record<string, never>, MappingRequest>('toggleApplicationOASMapping', ({ caller, params, body }) =>
  toggleMapping(caller, params.appId, body),
);
