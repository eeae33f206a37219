// What a function's deployed code can do to AWS, read from its bundle: the AWS SDK commands it can construct and
// the table, index and object keys each one addresses, mapped to IAM actions and resources. The stack grants each
// function exactly this (infra/stack.ts), so a route's grants follow its code: no hand-kept flag to forget.
//
// The bundle is esbuild's (minified, CommonJS: infra/bundling.ts) output. Minifying renames variables but keeps
// what this reads: the names taken from `@aws-sdk/*` (`var s=require("@aws-sdk/x")` then `new s.GetCommand(...)`,
// or destructured from `await import(...)` / `require(...)`), property names such as `TableName`,
// `IndexName`, `Key`, `Prefix`, the config properties naming the storage (`.tableName`, `.rateLimitTableName`)
// and the object-key builders of shared/storage/objects.ts (`.hostedDescription(...)`), and function structure.
// Each command's resources come from its argument; when the argument does not name them (a key passed in as a
// parameter), from the enclosing functions, then from the whole bundle: never less than the code can reach.
import ts from 'typescript';
import { objectKeys } from '../shared/storage/objects.ts';
import type { TableDefinition } from '../shared/db/tables.ts';

/** The config property that holds each table's name (shared/config.ts), by table id (shared/db/tables.ts). */
export const TABLE_CONFIG: Record<string, TableDefinition['id']> = {
  tableName: 'MainTable',
  rateLimitTableName: 'RateLimitTable',
};

/** IAM actions per AWS SDK command, by the name the SDK exports (client and lib-dynamodb document commands). */
const DYNAMODB_ACTIONS: Record<string, string> = {
  GetCommand: 'GetItem',
  GetItemCommand: 'GetItem',
  PutCommand: 'PutItem',
  PutItemCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  UpdateItemCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  DeleteItemCommand: 'DeleteItem',
  QueryCommand: 'Query',
  ScanCommand: 'Scan',
  BatchGetCommand: 'BatchGetItem',
  BatchGetItemCommand: 'BatchGetItem',
  BatchWriteCommand: 'BatchWriteItem',
  BatchWriteItemCommand: 'BatchWriteItem',
  TransactGetCommand: 'GetItem',
  TransactGetItemsCommand: 'GetItem',
};
/** A TransactWriteItems call needs the action of each kind of item it carries. */
const TRANSACT_ITEM_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
};
const TRANSACT_WRITE = new Set(['TransactWriteCommand', 'TransactWriteItemsCommand']);
/** HeadObject is authorized as GetObject; a presigned GET URL is a GetObjectCommand signed with the function's role. */
const S3_OBJECT_ACTIONS: Record<string, string> = {
  GetObjectCommand: 'GetObject',
  HeadObjectCommand: 'GetObject',
  PutObjectCommand: 'PutObject',
  DeleteObjectCommand: 'DeleteObject',
  DeleteObjectsCommand: 'DeleteObject',
};
const S3_LIST = new Set(['ListObjectsV2Command', 'ListObjectsCommand']);
const SECRETS_ACTIONS: Record<string, string> = { GetSecretValueCommand: 'GetSecretValue' };
/** The config property that holds each secret's ARN (shared/config.ts), by the stack's construct id. */
export const SECRET_CONFIG: Record<string, SecretId> = { signingSecretArn: 'JwtSigningSecret' };
export type SecretId = 'JwtSigningSecret';
/** KMS: wrapping and unwrapping the data keys integration secrets are sealed with (shared/secrets/sealing.ts). */
const KMS_ACTIONS: Record<string, string> = { GenerateDataKeyCommand: 'GenerateDataKey', DecryptCommand: 'Decrypt' };
/** The config property that holds each KMS key's ARN, by the stack's construct id. */
export const KMS_KEY_CONFIG: Record<string, KmsKeyId> = { integrationKmsKeyArn: 'IntegrationKey' };
export type KmsKeyId = 'IntegrationKey';
const SQS_ACTIONS: Record<string, string> = {
  SendMessageCommand: 'SendMessage',
  SendMessageBatchCommand: 'SendMessage',
  ChangeMessageVisibilityCommand: 'ChangeMessageVisibility',
  DeleteMessageCommand: 'DeleteMessage',
};
/** The config property that holds each queue's URL, by the stack's construct id. */
export const QUEUE_CONFIG: Record<string, QueueId> = { webhookQueueUrl: 'WebhookQueue' };
export type QueueId = 'WebhookQueue';
/** ECS: launching the hosted scan runner's task (shared/perch/runner.ts), which passes the task's roles. */
const ECS_ACTIONS: Record<string, string> = { RunTaskCommand: 'RunTask' };
/** EventBridge Scheduler: the schedules of scan schedules (shared/schedules/clock.ts), created with its role. */
const SCHEDULER_ACTIONS: Record<string, string> = {
  CreateScheduleCommand: 'CreateSchedule',
  UpdateScheduleCommand: 'UpdateSchedule',
  DeleteScheduleCommand: 'DeleteSchedule',
};
/**
 * API Gateway's management API: posting to the wake channel's connections and closing them (shared/perch/wake.ts);
 * ManageConnections either way, on the resource of the call's HTTP method.
 */
const WAKE_METHODS: Record<string, string> = { PostToConnectionCommand: 'POST', DeleteConnectionCommand: 'DELETE' };

export type AccessGrant =
  | { service: 'dynamodb'; table: TableDefinition['id']; onIndexes: boolean; actions: string[] }
  | { service: 's3'; action: string; keyPatterns: string[] }
  | { service: 's3-list'; prefixPatterns: string[] }
  | { service: 'secretsmanager'; secret: SecretId; actions: string[] }
  | { service: 'kms'; key: KmsKeyId; actions: string[] }
  | { service: 'sqs'; queue: QueueId; actions: string[] }
  | { service: 'ecs'; actions: string[] }
  | { service: 'scheduler'; actions: string[] }
  | { service: 'execute-api'; actions: string[]; methods: string[] };

export interface CommandUse {
  /** The SDK export constructed, e.g. `TransactWriteCommand`. */
  command: string;
  module: string;
}

export interface CodeAccess {
  commands: CommandUse[];
  /** The bundle signs presigned URLs (@aws-sdk/s3-request-presigner). */
  presigns: boolean;
  grants: AccessGrant[];
}

/** Key patterns of shared/storage/objects.ts, by builder name: `hostedDescription` -> `apps/x/oas/x` with `*`. */
function keyPatterns(): Record<string, string> {
  const patterns: Record<string, string> = {};
  for (const [name, build] of Object.entries(objectKeys) as [string, (...args: string[]) => string][]) {
    const key = build(...Array.from({ length: build.length }, () => '*'));
    patterns[name] = key.endsWith('/') ? `${key}*` : key;
  }
  return patterns;
}

const isFunctionLike = (node: ts.Node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node);

/**
 * The module an expression loads, awaited or not: `require("@aws-sdk/...")`, `import("@aws-sdk/...")`, and a load
 * on use as esbuild writes `await import(...)` for CommonJS: `Promise.resolve().then(()=>__toESM(require("..."),1))`
 * (a call whose first argument is a loaded module is taken as the module: esbuild's interop helper, renamed).
 */
function loadedModuleOf(expression: ts.Expression | undefined): string | undefined {
  let e = expression;
  while (e && (ts.isAwaitExpression(e) || ts.isParenthesizedExpression(e))) e = e.expression;
  if (!e || !ts.isCallExpression(e) || e.arguments.length === 0) return undefined;
  const [argument] = e.arguments;
  if (ts.isStringLiteral(argument) && e.arguments.length === 1) {
    const loader =
      e.expression.kind === ts.SyntaxKind.ImportKeyword ||
      (ts.isIdentifier(e.expression) && e.expression.text === 'require');
    return loader ? argument.text : undefined;
  }
  // x.then(() => <module>)
  if (
    ts.isPropertyAccessExpression(e.expression) &&
    e.expression.name.text === 'then' &&
    ts.isArrowFunction(argument) &&
    !ts.isBlock(argument.body)
  )
    return loadedModuleOf(argument.body);
  return ts.isIdentifier(e.expression) ? loadedModuleOf(argument) : undefined;
}

/** A name bound to one SDK export (`exported`), to a whole SDK module (`exported` undefined), or to something else. */
type SdkBinding = { module: string; exported?: string } | null;

/** The scope a declaration belongs to: `var` and parameters to their function, `let`/`const` to their block. */
function ownerOf(declaration: ts.Node, functionScoped: boolean): ts.Node {
  for (let node = declaration.parent; node; node = node.parent) {
    if (isFunctionLike(node) || ts.isSourceFile(node)) return node;
    if (
      !functionScoped &&
      (ts.isBlock(node) ||
        ts.isForStatement(node) ||
        ts.isForOfStatement(node) ||
        ts.isForInStatement(node) ||
        ts.isCaseBlock(node))
    )
      return node;
  }
  return declaration.getSourceFile();
}

/** A name the AWS SDK gives its commands (`DecryptCommand`, `GetCommand`); a bare `Command` is some other class. */
const SDK_COMMAND_NAME = /^[A-Z][A-Za-z0-9]*Command$/;

/** The name a `new` expression constructs: `X`, `s.X` (also `a.b.X`) or `s["X"]`; undefined for anything else. */
function constructedName(expression: ts.Expression): string | undefined {
  let e = expression;
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isElementAccessExpression(e) && ts.isStringLiteralLike(e.argumentExpression)) return e.argumentExpression.text;
  return undefined;
}

export function analyzeBundle(code: string): CodeAccess {
  const file = ts.createSourceFile('bundle.mjs', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const patterns = new Map(Object.entries(keyPatterns()));
  const tableOf = new Map(Object.entries(TABLE_CONFIG));
  // Every declared name by scope, so a minified name reused in another function resolves to its own declaration.
  const scopes = new Map<ts.Node, Map<string, SdkBinding>>();
  const declare = (owner: ts.Node, name: string, binding: SdkBinding) => {
    if (!scopes.has(owner)) scopes.set(owner, new Map());
    scopes.get(owner)!.set(name, binding);
  };
  const declareNames = (name: ts.BindingName, owner: ts.Node, module: string | undefined) => {
    if (ts.isIdentifier(name)) return declare(owner, name.text, null);
    for (const element of name.elements) {
      if (ts.isOmittedExpression(element)) continue;
      const exported = ts.isObjectBindingPattern(name)
        ? (element.propertyName ?? element.name).getText(file)
        : undefined;
      if (ts.isIdentifier(element.name))
        declare(owner, element.name.text, module?.startsWith('@aws-sdk/') && exported ? { module, exported } : null);
      else declareNames(element.name, owner, undefined);
    }
  };
  const resolve = (identifier: ts.Identifier): SdkBinding => {
    for (let node: ts.Node | undefined = identifier.parent; node; node = node.parent) {
      const scope = scopes.get(node);
      if (scope?.has(identifier.text)) return scope.get(identifier.text)!;
    }
    return null;
  };
  const news: ts.NewExpression[] = [];
  const calls: ts.CallExpression[] = [];
  const transactItems: { kind: string; tables: Set<string> }[] = [];

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const module = node.moduleSpecifier.text;
      const clause = node.importClause;
      if (clause?.name) declare(file, clause.name.text, null);
      const named = clause?.namedBindings;
      if (named && ts.isNamespaceImport(named)) declare(file, named.name.text, null);
      if (named && ts.isNamedImports(named)) {
        for (const element of named.elements) {
          declare(
            file,
            element.name.text,
            module.startsWith('@aws-sdk/') ? { module, exported: (element.propertyName ?? element.name).text } : null,
          );
        }
      }
    }
    if (ts.isVariableDeclaration(node)) {
      const list = node.parent;
      const functionScoped =
        ts.isVariableDeclarationList(list) && !(list.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const));
      const module = loadedModuleOf(node.initializer);
      // var s = require("@aws-sdk/x"): the whole module, its exports read as `s.Name`.
      if (ts.isIdentifier(node.name) && module?.startsWith('@aws-sdk/'))
        declare(ownerOf(node, functionScoped), node.name.text, { module });
      else declareNames(node.name, ownerOf(node, functionScoped), module);
    }
    if (ts.isParameter(node)) {
      // import("@aws-sdk/x").then(({ A, B }) => ...)
      const fn = node.parent;
      const call = fn.parent;
      const module =
        call &&
        ts.isCallExpression(call) &&
        ts.isPropertyAccessExpression(call.expression) &&
        call.expression.name.text === 'then' &&
        fn.parameters[0] === node
          ? loadedModuleOf(call.expression.expression)
          : undefined;
      declareNames(node.name, fn, module);
    }
    if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name)
      declare(ownerOf(node, true), node.name.text, null);
    if (ts.isCatchClause(node) && node.variableDeclaration)
      declareNames(node.variableDeclaration.name, node, undefined);
    if (ts.isNewExpression(node)) news.push(node);
    if (ts.isCallExpression(node)) calls.push(node);
    // { Put: { TableName: config.tableName, ... } }: one item of a transaction.
    if (
      ts.isPropertyAssignment(node) &&
      Object.hasOwn(TRANSACT_ITEM_ACTIONS, node.name.getText(file)) &&
      ts.isObjectLiteralExpression(node.initializer)
    ) {
      const hasTableName = node.initializer.properties.some((p) => p.name?.getText(file) === 'TableName');
      if (hasTableName) transactItems.push({ kind: node.name.getText(file), tables: tablesIn(node.initializer) });
    }
    ts.forEachChild(node, visit);
  };

  /** Tables named in a subtree: `.tableName` / `.rateLimitTableName` reads (not the config's own definition). */
  function tablesIn(node: ts.Node): Set<string> {
    const found = new Set<string>();
    const walk = (n: ts.Node) => {
      if (ts.isPropertyAccessExpression(n) && tableOf.has(n.name.text)) found.add(tableOf.get(n.name.text)!);
      ts.forEachChild(n, walk);
    };
    walk(node);
    return found;
  }
  /** The resources named in a subtree by reads of the config properties in `names` (e.g. `.signingSecretArn`). */
  function configReadsIn<T>(node: ts.Node, names: Record<string, T>): Set<T> {
    const found = new Set<T>();
    const walk = (n: ts.Node) => {
      if (ts.isPropertyAccessExpression(n) && Object.hasOwn(names, n.name.text)) found.add(names[n.name.text]);
      ts.forEachChild(n, walk);
    };
    walk(node);
    return found;
  }
  /** Object-key patterns built in a subtree: calls of shared/storage/objects.ts builders. */
  function keysIn(node: ts.Node): Set<string> {
    const found = new Set<string>();
    const walk = (n: ts.Node) => {
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && patterns.has(n.expression.name.text))
        found.add(patterns.get(n.expression.name.text)!);
      ts.forEachChild(n, walk);
    };
    walk(node);
    return found;
  }
  const hasProperty = (node: ts.Node, name: string): boolean => {
    let found = false;
    const walk = (n: ts.Node) => {
      if (found) return;
      if (ts.isPropertyAssignment(n) && n.name.getText(file) === name) found = true;
      ts.forEachChild(n, walk);
    };
    walk(node);
    return found;
  };
  /** The evidence in the command's argument, else in each enclosing function outwards, else in the whole bundle. */
  function nearest<T>(node: ts.NewExpression, find: (n: ts.Node) => Set<T>): Set<T> {
    const scopes: ts.Node[] = node.arguments?.length ? [node.arguments[0]] : [];
    for (let parent: ts.Node | undefined = node.parent; parent; parent = parent.parent)
      if (isFunctionLike(parent)) scopes.push(parent);
    scopes.push(file);
    for (const scope of scopes) {
      const found = find(scope);
      if (found.size > 0) return found;
    }
    return new Set();
  }

  /** The SDK export an expression names: `b` bound to one, `s.Name` on a bound module, `(0, s.Name)` as esbuild calls it. */
  const sdkExportOf = (expression: ts.Expression): { module: string; exported: string } | undefined => {
    let e = expression;
    while (ts.isParenthesizedExpression(e)) e = e.expression;
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.CommaToken) return sdkExportOf(e.right);
    if (ts.isIdentifier(e)) {
      const binding = resolve(e);
      return binding?.exported ? { module: binding.module, exported: binding.exported } : undefined;
    }
    if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression)) {
      const binding = resolve(e.expression);
      return binding && !binding.exported ? { module: binding.module, exported: e.name.text } : undefined;
    }
    return undefined;
  };

  visit(file);
  const presigns = calls.some((call) => sdkExportOf(call.expression)?.module === '@aws-sdk/s3-request-presigner');

  const commands: CommandUse[] = [];
  const dynamodb = new Map<string, Set<string>>(); // `${table}|${onIndexes}` -> actions
  const addDynamodb = (table: string, onIndexes: boolean, action: string) => {
    const key = `${table}|${onIndexes}`;
    dynamodb.set(key, (dynamodb.get(key) ?? new Set()).add(action));
  };
  const s3Objects = new Map<string, Set<string>>(); // action -> key patterns
  const s3List = new Set<string>();
  const secrets = new Map<SecretId, Set<string>>();
  const kmsKeys = new Map<KmsKeyId, Set<string>>();
  const queues = new Map<QueueId, Set<string>>();
  const ecs = new Set<string>();
  const scheduler = new Set<string>();
  const executeApiMethods = new Set<string>();

  for (const node of news) {
    const binding = sdkExportOf(node.expression);
    if (!binding) {
      const name = constructedName(node.expression);
      // A command this cannot trace to `@aws-sdk/*` would go ungranted: refuse it rather than under-grant.
      // Minified names never end in `Command`, so this matches only `x.NameCommand` and unminified names.
      if (name && SDK_COMMAND_NAME.test(name))
        throw new Error(
          `new ${name}(...): the constructor is not traced to an @aws-sdk/* module, so its IAM grant cannot be ` +
            `derived. Construct SDK commands from names imported from '@aws-sdk/*' (import { ${name} } from ` +
            `'@aws-sdk/...' or await import(...) destructured), not through a module object passed around ` +
            `(docs/DEPLOYMENT.md, IAM derived from each bundle)`,
        );
      continue;
    }
    if (!binding.exported.endsWith('Command')) continue;
    const { exported: command, module } = binding;
    commands.push({ command, module });
    if (module === '@aws-sdk/client-dynamodb' || module === '@aws-sdk/lib-dynamodb') {
      if (TRANSACT_WRITE.has(command)) {
        if (transactItems.length === 0)
          throw new Error(`${command}: no transaction items with a TableName found in the bundle`);
        for (const item of transactItems)
          for (const table of item.tables) addDynamodb(table, false, TRANSACT_ITEM_ACTIONS[item.kind]);
        continue;
      }
      const action = Object.hasOwn(DYNAMODB_ACTIONS, command) ? DYNAMODB_ACTIONS[command] : undefined;
      if (!action) throw new Error(`no IAM mapping for ${module} ${command}: add it to infra/code-access.ts`);
      const tables = nearest(node, tablesIn);
      if (tables.size === 0) throw new Error(`${command}: no table named in its argument, its functions or the bundle`);
      const onIndexes =
        command.startsWith('Query') && (node.arguments?.[0] ? hasProperty(node.arguments[0], 'IndexName') : true);
      for (const table of tables) {
        addDynamodb(table, false, action);
        if (onIndexes) addDynamodb(table, true, action);
      }
    } else if (module === '@aws-sdk/client-s3') {
      const keys = nearest(node, keysIn);
      // A key read from a record (not built here) could be any key the service writes: the whole bucket.
      const reach = keys.size > 0 ? [...keys] : ['*'];
      if (S3_LIST.has(command)) {
        for (const pattern of reach) s3List.add(pattern);
        continue;
      }
      const action = Object.hasOwn(S3_OBJECT_ACTIONS, command) ? S3_OBJECT_ACTIONS[command] : undefined;
      if (!action) throw new Error(`no IAM mapping for ${module} ${command}: add it to infra/code-access.ts`);
      s3Objects.set(action, new Set([...(s3Objects.get(action) ?? []), ...reach]));
    } else if (module === '@aws-sdk/client-secrets-manager') {
      const action = Object.hasOwn(SECRETS_ACTIONS, command) ? SECRETS_ACTIONS[command] : undefined;
      if (!action) throw new Error(`no IAM mapping for ${module} ${command}: add it to infra/code-access.ts`);
      const named = nearest(node, (n) => configReadsIn(n, SECRET_CONFIG));
      if (named.size === 0) throw new Error(`${command}: no secret named in its argument, its functions or the bundle`);
      for (const secret of named) secrets.set(secret, (secrets.get(secret) ?? new Set()).add(action));
    } else if (module === '@aws-sdk/client-kms') {
      const action = Object.hasOwn(KMS_ACTIONS, command) ? KMS_ACTIONS[command] : undefined;
      if (!action) throw new Error(`no IAM mapping for ${module} ${command}: add it to infra/code-access.ts`);
      const named = nearest(node, (n) => configReadsIn(n, KMS_KEY_CONFIG));
      if (named.size === 0)
        throw new Error(`${command}: no KMS key named in its argument, its functions or the bundle`);
      for (const key of named) kmsKeys.set(key, (kmsKeys.get(key) ?? new Set()).add(action));
    } else if (module === '@aws-sdk/client-sqs') {
      const action = Object.hasOwn(SQS_ACTIONS, command) ? SQS_ACTIONS[command] : undefined;
      if (!action) throw new Error(`no IAM mapping for ${module} ${command}: add it to infra/code-access.ts`);
      const named = nearest(node, (n) => configReadsIn(n, QUEUE_CONFIG));
      if (named.size === 0) throw new Error(`${command}: no queue named in its argument, its functions or the bundle`);
      for (const queue of named) queues.set(queue, (queues.get(queue) ?? new Set()).add(action));
    } else if (module === '@aws-sdk/client-ecs') {
      const action = Object.hasOwn(ECS_ACTIONS, command) ? ECS_ACTIONS[command] : undefined;
      if (!action) throw new Error(`no IAM mapping for ${module} ${command}: add it to infra/code-access.ts`);
      ecs.add(action);
    } else if (module === '@aws-sdk/client-scheduler') {
      const action = Object.hasOwn(SCHEDULER_ACTIONS, command) ? SCHEDULER_ACTIONS[command] : undefined;
      if (!action) throw new Error(`no IAM mapping for ${module} ${command}: add it to infra/code-access.ts`);
      scheduler.add(action);
    } else if (module === '@aws-sdk/client-apigatewaymanagementapi') {
      const method = Object.hasOwn(WAKE_METHODS, command) ? WAKE_METHODS[command] : undefined;
      if (!method) throw new Error(`no IAM mapping for ${module} ${command}: add it to infra/code-access.ts`);
      executeApiMethods.add(method);
    } else {
      throw new Error(`no IAM mapping for ${module} ${command}: add it to infra/code-access.ts`);
    }
  }

  const grants: AccessGrant[] = [];
  for (const [key, actions] of [...dynamodb].sort(([a], [b]) => a.localeCompare(b))) {
    const [table, onIndexes] = key.split('|');
    grants.push({
      service: 'dynamodb',
      table: table as TableDefinition['id'],
      onIndexes: onIndexes === 'true',
      actions: [...actions].sort(),
    });
  }
  for (const [action, keys] of [...s3Objects].sort(([a], [b]) => a.localeCompare(b)))
    grants.push({ service: 's3', action, keyPatterns: [...keys].sort() });
  if (s3List.size) grants.push({ service: 's3-list', prefixPatterns: [...s3List].sort() });
  for (const [secret, actions] of [...secrets].sort(([a], [b]) => a.localeCompare(b)))
    grants.push({ service: 'secretsmanager', secret, actions: [...actions].sort() });
  for (const [key, actions] of [...kmsKeys].sort(([a], [b]) => a.localeCompare(b)))
    grants.push({ service: 'kms', key, actions: [...actions].sort() });
  for (const [queue, actions] of [...queues].sort(([a], [b]) => a.localeCompare(b)))
    grants.push({ service: 'sqs', queue, actions: [...actions].sort() });
  if (ecs.size) grants.push({ service: 'ecs', actions: [...ecs].sort() });
  if (scheduler.size) grants.push({ service: 'scheduler', actions: [...scheduler].sort() });
  if (executeApiMethods.size)
    grants.push({ service: 'execute-api', actions: ['ManageConnections'], methods: [...executeApiMethods].sort() });
  return { commands, presigns, grants };
}
