import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { AttributeType, Billing, TableV2, type Attribute } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { routes, type Route } from '../shared/routes.ts';
import { mainTable, rateLimitTable, type KeyAttribute, type TableDefinition } from '../shared/db/tables.ts';

const attribute = (key: KeyAttribute): Attribute => ({ name: key.name, type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER });

function table(scope: Construct, definition: TableDefinition, pointInTimeRecovery: boolean): TableV2 {
  return new TableV2(scope, definition.id, {
    partitionKey: attribute(definition.partitionKey),
    sortKey: definition.sortKey && attribute(definition.sortKey),
    billing: Billing.onDemand(),
    timeToLiveAttribute: definition.timeToLiveAttribute,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: pointInTimeRecovery },
    globalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
      indexName: index.indexName,
      partitionKey: attribute(index.partitionKey),
      sortKey: attribute(index.sortKey),
    })),
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

/**
 * API Gateway wants one name per path position: `/scan/{orgId}` (GET) and `/scan/{scanId}` (DELETE) are the same
 * route shape. Each parameter is renamed after the first route that reaches that position; the handlers read
 * parameters from the raw path with their own template, so the names here are only labels.
 */
export function apiGatewayPaths(all: Route[]): Map<Route, string> {
  const canonical = new Map<string, string>();
  const result = new Map<Route, string>();
  for (const route of all) {
    const segments = route.path.split('/');
    const renamed = segments.map((segment, i) => {
      if (!segment.startsWith('{')) return segment;
      const prefix = segments.slice(0, i).map((s) => (s.startsWith('{') ? '{}' : s)).join('/');
      if (!canonical.has(prefix)) canonical.set(prefix, segment);
      return canonical.get(prefix)!;
    });
    result.set(route, renamed.join('/'));
  }
  return result;
}

/** A readable, unique construct id from an operationId: getUser -> GetUserFunction. */
const functionId = (route: Route) => `${route.operationId.charAt(0).toUpperCase()}${route.operationId.slice(1)}Function`;

export class HawkApiStack extends Stack {
  /** The HTTP API, which the dashboard's CloudFront distribution (infra/web.ts) forwards /api/* to. */
  readonly api: HttpApi;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    const main = table(this, mainTable, true);
    const rateLimit = table(this, rateLimitTable, false);
    const assets = new Bucket(this, 'AssetsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const signingSecret = new Secret(this, 'JwtSigningSecret', {
      description: 'HS256 key that signs the API access tokens',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });

    const api = new HttpApi(this, 'HttpApi', { description: 'hawk-api: the public StackHawk API, self-hosted' });
    this.api = api;
    const paths = apiGatewayPaths(routes);

    for (const route of routes) {
      const fn = new NodejsFunction(this, functionId(route), {
        entry: new URL(`../functions/${route.handler}.ts`, import.meta.url).pathname,
        handler: 'handler',
        runtime: Runtime.NODEJS_22_X,
        architecture: Architecture.ARM_64,
        memorySize: 512,
        timeout: Duration.seconds(29),
        logGroup: new LogGroup(this, `${functionId(route)}Logs`, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
        description: `${route.method} ${route.path}`,
        environment: {
          TABLE_NAME: main.tableName,
          RATE_LIMIT_TABLE_NAME: rateLimit.tableName,
          ASSETS_BUCKET: assets.bucketName,
          SIGNING_SECRET_ARN: signingSecret.secretArn,
          NODE_OPTIONS: '--enable-source-maps',
        },
        bundling: {
          minify: true,
          sourceMap: true,
          format: OutputFormat.ESM,
          target: 'node22',
          mainFields: ['module', 'main'],
          // The Node.js 22 runtime provides the AWS SDK v3: keeping it out keeps bundles small and cold starts short.
          externalModules: ['@aws-sdk/*'],
          banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        },
      });
      // Least privilege: every operation authenticates (reads the table, updates its rate-limit record);
      // only mutations write the table; only operations with hosted assets touch the bucket.
      signingSecret.grantRead(fn);
      rateLimit.grant(fn, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem');
      main.grant(fn, 'dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query');
      if (route.method !== 'GET' || route.auth === 'apiKey') {
        main.grant(fn, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:ConditionCheckItem');
      }
      // Hosted assets: GetObject signs presigned downloads; ListBucket makes a missing key 404 rather than 403.
      if (route.storage) {
        fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [assets.bucketArn] }));
        const objectActions = route.storage === 'readwrite' ? ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'] : ['s3:GetObject'];
        fn.addToRolePolicy(new PolicyStatement({ actions: objectActions, resources: [assets.arnForObjects('*')] }));
      }

      api.addRoutes({
        path: paths.get(route)!,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${functionId(route)}Integration`, fn),
      });
    }

    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint });
    new CfnOutput(this, 'TableName', { value: main.tableName });
    new CfnOutput(this, 'AssetsBucketName', { value: assets.bucketName });
  }
}
