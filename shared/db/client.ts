import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { currentScope } from '../request-scope.ts';

const READ_COMMANDS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

type Capacity = { CapacityUnits?: number; ReadCapacityUnits?: number };
function readUnitsOf(output: unknown): number {
  const consumed = (output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
  return [consumed ?? []].flat().reduce((sum, c) => sum + (c.ReadCapacityUnits ?? c.CapacityUnits ?? 0), 0);
}

function createClient(): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region,
    endpoint: config.dynamodbEndpoint,
    // DynamoDB Local keeps one database per access key and region: fixed fake credentials locally.
    ...(config.dynamodbEndpoint ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const scope = currentScope();
      if (!scope) return next(args);
      scope.dynamodbCalls += 1;
      const isRead = READ_COMMANDS.has(context.commandName ?? '');
      if (isRead) (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity ??= 'TOTAL';
      const result = await next(args);
      if (isRead) scope.readUnits = (scope.readUnits ?? 0) + readUnitsOf(result.output);
      return result;
    },
    { step: 'initialize', name: 'countDynamodbCalls' },
  );
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
}

/** The one DynamoDB client of the process (reused across Lambda invocations). */
export const db = createClient();
