import type { WebSocketEvent } from '../shared/http/wake-channel-event.ts';
import { disconnectWakeChannel } from '../shared/perch/wake.ts';

// The wake channel's $disconnect (docs/HOSTED-SCANS.md, Idle agents): the connection's item goes.
export const handler = async (event: WebSocketEvent) => {
  await disconnectWakeChannel(event.requestContext.connectionId);
  return { statusCode: 200 };
};
