import { createServer, type AddressInfo, type Server } from 'node:net';

/**
 * `count` different TCP ports on the loopback interface that were free a moment ago, none of `except` (ports chosen
 * earlier that nothing listens on yet), for tests and benchmarks. Each stays taken until all are chosen: a port
 * closed at once may be the next one the system hands out.
 */
export async function freePorts(count: number, except: number[] = []): Promise<number[]> {
  const servers: Server[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
      const { port } = server.address() as AddressInfo;
      if (!except.includes(port)) ports.push(port);
    }
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
  return ports;
}

/** A TCP port on the loopback interface that was free a moment ago, none of `except`. */
export const freePort = async (except: number[] = []): Promise<number> => (await freePorts(1, except))[0]!;

/** Whether a TCP port can be listened on, on loopback and on every interface (as DynamoDB Local may). */
export async function portIsFree(port: number): Promise<boolean> {
  for (const host of ['127.0.0.1', '0.0.0.0']) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, host, () => server.close(() => resolve(true)));
    });
    if (!free) return false;
  }
  return true;
}
