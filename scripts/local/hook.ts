import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Requests the local server answers itself before the API routes (health, the OpenAPI document and docs, the
 * hosted-asset downloads): a hook answers and returns true, or returns false to pass. Each lives in its own module.
 */
export type LocalHook = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> | boolean;
