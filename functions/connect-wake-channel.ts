import type { Context } from 'aws-lambda';
import { operation } from '../shared/http/operation.ts';
import { wakeChannelEvent, wakeChannelRoute, type WebSocketEvent } from '../shared/http/wake-channel-event.ts';
import { connectWakeChannel } from '../shared/perch/wake.ts';

// The wake channel's $connect (docs/HOSTED-SCANS.md, Idle agents): a status other than 200 refuses the connection.
const connect = operation(wakeChannelRoute, ({ caller, params, query }) =>
  connectWakeChannel(caller, params.orgId, params.deviceId, query.connectionId),
);

export const handler = (event: WebSocketEvent, context: Context) =>
  connect(wakeChannelEvent(event, wakeChannelRoute), context);
