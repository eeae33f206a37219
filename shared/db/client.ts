import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { currentScope } from '../request-scope.ts';

function createClient(): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: config.region,
    endpoint: config.dynamodbEndpoint,
    // DynamoDB Local keeps one database per access key and region: fixed fake credentials locally.
    ...(config.dynamodbEndpoint ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      const scope = currentScope();
      if (scope) scope.dynamodbCalls += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countDynamodbCalls' },
  );
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
  });
}

/** The one DynamoDB client of the process (reused across Lambda invocations). */
export const db = createClient();
