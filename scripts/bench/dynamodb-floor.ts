// Shared by the foundation and overview sections of `npm run bench`.

type DocumentClient = import('@aws-sdk/lib-dynamodb').DynamoDBDocumentClient;
type AnyCommand = { input: unknown; constructor: new (input: unknown) => AnyCommand };
const sendOf = (client: DocumentClient) =>
  client.send.bind(client) as unknown as (command: AnyCommand) => Promise<unknown>;

/**
 * The floor under a request's latency: the DynamoDB calls it makes (its second run: the steady state of a client),
 * recorded from every client of shared/db/client.ts within a request's scope, and a function that makes the same calls again directly, round
 * trip by round trip, with no HTTP, pipeline or encoding. What a request costs above it is ours; the floor itself is
 * what DynamoDB Local charges for the calls (a write beside a read costs it more than the GetItem the ratios divide by).
 */
export async function dynamodbFloor(request: () => Promise<unknown>) {
  const { dynamodbClients } = await import('../../shared/db/client.ts');
  const { currentScope } = await import('../../shared/context/request-scope.ts');
  const calls: { client: DocumentClient; command: AnyCommand; roundTrip: number }[] = [];
  let inFlight = 0;
  let roundTrip = 0;
  for (const client of dynamodbClients) {
    const send = sendOf(client);
    Object.assign(client, {
      send: async (command: AnyCommand) => {
        // Only the request's own calls: work of no request (a background write, a heal) is not its floor.
        if (!currentScope()) return send(command);
        if (!inFlight) roundTrip += 1; // as shared/db/client.ts counts round trips
        inFlight += 1;
        calls.push({ client, command: new command.constructor(structuredClone(command.input)), roundTrip });
        try {
          return await send(command);
        } finally {
          inFlight -= 1;
        }
      },
    });
  }
  try {
    await request();
    calls.length = 0;
    roundTrip = 0;
    await request();
  } finally {
    for (const client of dynamodbClients) delete (client as { send?: unknown }).send; // back to the prototype's
  }
  const waves = [...new Set(calls.map((c) => c.roundTrip))].map((n) => calls.filter((c) => c.roundTrip === n));
  const replay = async () => {
    for (const wave of waves) {
      await Promise.all(
        wave.map(({ client, command }) =>
          sendOf(client)(new command.constructor(structuredClone(command.input))).catch((error: Error) => {
            // A conditional write refused the second time still made its round trip.
            if (error.name !== 'ConditionalCheckFailedException') throw error;
          }),
        ),
      );
    }
  };
  return { replay, calls: waves.map((wave) => wave.map((c) => c.command.constructor.name).join(' + ')) };
}
