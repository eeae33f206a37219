import type { WebSocketEvent } from '../shared/http/wake-channel-event.ts';
import { runInScope } from '../shared/context/request-scope.ts';
import { disconnectWakeChannel } from '../shared/perch/wake.ts';

// The wake channel's $disconnect (docs/HOSTED-SCANS.md, Idle agents): the connection's item goes. In a request scope
// of its own, as an operation's, so its DynamoDB calls are counted (the idle-agent bench).
export const handler = async (event: WebSocketEvent) => {
  const { connectionId } = event.requestContext;
  await runInScope({ requestId: connectionId, dynamodbCalls: 0 }, () => disconnectWakeChannel(connectionId));
  return { statusCode: 200 };
};
