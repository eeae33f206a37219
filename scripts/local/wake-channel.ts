import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { LocalHook } from './hook.ts';
import { httpRequestOf, lambdaContext } from './server.ts';
import { wakeChannelRoute, type WebSocketEvent } from '../../shared/http/wake-channel-event.ts';
import { WAKE_PATH } from './wake-path.ts';

// The local stand-in for the wake channel's WebSocket API (docs/HOSTED-SCANS.md, Idle agents), at WAKE_PATH on the
// local server: an upgrade runs the same $connect handler a Lambda would (its answer other than 200 refuses the
// connection with that status and body), a closed socket the same $disconnect; a message is the keepalive (as the
// MOCK `ping` route on AWS: nothing runs). Posts to `<WAKE_PATH>/@connections/<id>` (the management API wakeAgents
// calls, which on AWS needs execute-api:ManageConnections) are sent to that connection's socket, 410 once it is gone;
// a DELETE there closes the socket (a wake closing a connection whose session is no longer let in).

const CONNECTIONS = `${WAKE_PATH}/@connections/`;

const connectHandler = () => import('../../functions/connect-wake-channel.ts').then((m) => m.handler);
const disconnectHandler = () => import('../../functions/disconnect-wake-channel.ts').then((m) => m.handler);

function webSocketEvent(req: IncomingMessage, connectionId: string): WebSocketEvent {
  const request = httpRequestOf(req, Buffer.alloc(0));
  const url = new URL(req.url ?? '/', 'http://localhost');
  return {
    headers: Object.fromEntries(request.headers.map(([name, value]) => [name.toLowerCase(), value])),
    queryStringParameters: Object.fromEntries(url.searchParams),
    requestContext: { connectionId, requestId: randomUUID(), identity: { sourceIp: request.sourceIp } },
  };
}

/** A post to a connection is a wake (`{"type":"wake"}`); API Gateway takes up to 128 KB, more than a wake needs. */
const MAX_POST_BYTES = 4096;
const GONE = '{"message":"GoneException"}';

function refuse(socket: Duplex, status: number, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Refused'}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The channel on `server`, and the hook serving its management API (add it to the server's hooks). */
export function localWakeChannel() {
  const sockets = new Map<string, WebSocket>();
  // An agent sends only its keepalive (`{"action":"ping"}`): a larger frame closes the connection.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 });
  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== WAKE_PATH) return refuse(socket, 404, '{}');
    // A client reset while $connect runs must not crash the server (Node drops its own listener on upgrade).
    socket.on('error', () => socket.destroy());
    const connectionId = randomUUID();
    const answer = await (await connectHandler())(webSocketEvent(req, connectionId), lambdaContext(wakeChannelRoute));
    if (answer.statusCode !== 200) return refuse(socket, answer.statusCode ?? 500, answer.body ?? '');
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.set(connectionId, ws);
      ws.on('error', () => ws.terminate());
      ws.on('close', () => {
        sockets.delete(connectionId);
        void disconnectHandler().then((disconnect) =>
          disconnect({ requestContext: { connectionId } }).catch((error: Error) => console.error(error)),
        );
      });
    });
  };
  const hook: LocalHook = async (req, res, url) => {
    if (!url.pathname.startsWith(CONNECTIONS) || (req.method !== 'POST' && req.method !== 'DELETE')) return false;
    const ws = sockets.get(decodeURIComponent(url.pathname.slice(CONNECTIONS.length)));
    if (req.method === 'DELETE') {
      if (ws) ws.close(1000);
      res.writeHead(ws ? 204 : 410, { 'content-type': 'application/json' }).end(ws ? undefined : GONE);
      return true;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_POST_BYTES) {
        res.writeHead(413, { 'content-type': 'application/json' }).end('{"message":"PayloadTooLargeException"}');
        return true;
      }
      chunks.push(chunk as Buffer);
    }
    if (!ws) {
      res.writeHead(410, { 'content-type': 'application/json' }).end(GONE);
      return true;
    }
    ws.send(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200).end();
    return true;
  };
  return {
    hook,
    attach(server: Server) {
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        upgrade(req, socket, head).catch((error: Error) => {
          console.error(error);
          refuse(socket, 500, '{"message":"Internal error"}');
        });
      });
    },
    close() {
      for (const ws of sockets.values()) ws.terminate();
      wss.close();
    },
  };
}
