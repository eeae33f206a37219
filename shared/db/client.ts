import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { currentScope } from '../context/request-scope.ts';
import { consistentReadsRequested, makeConsistent } from './consistent-reads.ts';

const READ_COMMANDS = new Set([
  'GetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'TransactGetItemsCommand',
]);

type Capacity = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };
function unitsOf(output: unknown, kind: 'ReadCapacityUnits' | 'WriteCapacityUnits'): number {
  const consumed = (output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
  return [consumed ?? []].flat().reduce((sum, c) => sum + (c[kind] ?? c.CapacityUnits ?? 0), 0);
}

/** Every client createClient made: the benchmark replays a request's own DynamoDB calls through them (its floor). */
export const dynamodbClients: DynamoDBDocumentClient[] = [];

/** A DynamoDB document client with its own connection pool, counting calls per request (`endpoint`: locally). */
export function createClient(endpoint = config.dynamodbEndpoint): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region,
    endpoint,
    // DynamoDB Local keeps one database per access key and region: fixed fake credentials locally.
    ...(endpoint ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  // The SDK's logger middleware builds a redacted copy of every call's input and output for its logger, a no-op
  // one here (we configure none): ~25 us of CPU per call spent on nothing (a profile of the request path).
  client.middlewareStack.remove('loggerMiddleware');
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (consistentReadsRequested()) makeConsistent(context.commandName ?? '', args.input as object);
      return next(args);
    },
    { step: 'initialize', name: 'consistentReadsWhenAsked' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const scope = currentScope();
      if (!scope) return next(args);
      scope.dynamodbCalls += 1;
      // A call that starts while another is in flight shares its round trip.
      if (!scope.dynamodbInFlight) scope.dynamodbRoundTrips = (scope.dynamodbRoundTrips ?? 0) + 1;
      scope.dynamodbInFlight = (scope.dynamodbInFlight ?? 0) + 1;
      const kind = READ_COMMANDS.has(context.commandName ?? '') ? 'ReadCapacityUnits' : 'WriteCapacityUnits';
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity ??= 'TOTAL';
      try {
        const result = await next(args);
        const units = unitsOf(result.output, kind);
        if (kind === 'ReadCapacityUnits') scope.readUnits = (scope.readUnits ?? 0) + units;
        else scope.writeUnits = (scope.writeUnits ?? 0) + units;
        return result;
      } finally {
        scope.dynamodbInFlight -= 1;
      }
    },
    { step: 'initialize', name: 'countDynamodbCalls' },
  );
  const documentClient = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
  dynamodbClients.push(documentClient);
  return documentClient;
}

/** The one DynamoDB client of the process (reused across Lambda invocations). */
export const db = createClient();
