import { operation } from '../shared/http/operation.ts';
import { refresh, refreshReads } from '../shared/identity/sessions.ts';

export const handler = operation('refreshToken', ({ caller }) => refresh(caller.userId, caller.apiKeyId), { prefetch: refreshReads });
