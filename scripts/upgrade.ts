// `npm run --silent upgrade -- [--stack <name>] [-- <cdk deploy options>]`: deploys this version over a stack of an
// earlier one whose main table lacks indexes added since. CloudFormation creates at most one global secondary index
// per table per update, so it deploys the API stack once per missing index (context mainTableIndexes,
// infra/index-steps.ts), each time waiting until DynamoDB has built it, then `cdk deploy --all`, then the index
// backfill (npm run migrate). Over a stack whose API stack still holds the operations' routes (a version before the
// nested stacks), it first deploys without them (infra/route-move.ts). Each step is decided from the deployed stack
// and table: after a failure, run it again.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { runCli, stackOutputs, stackResourceTypes, UsageError, useResolvedRegion } from './aws-stack.ts';
import { indexSteps, MAIN_TABLE_INDEXES_CONTEXT } from '../infra/index-steps.ts';
import { holdsOperationRoutes, OPERATION_ROUTES_CONTEXT } from '../infra/route-move.ts';
import { mainTable } from '../shared/db/tables.ts';
import { SERVICE_PATHS } from '../shared/service/pages.ts';

const USAGE =
  'usage: npm run --silent upgrade -- [--stack <name>] [-- <cdk deploy options, e.g. --require-approval never>]';
const root = new URL('..', import.meta.url).pathname;

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  process.stderr.write(`upgrade: ${command} ${args.join(' ')}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until every index of the table is ACTIVE (DynamoDB builds a new one from the items' keys). */
async function indexesActive(tableName: string): Promise<void> {
  const { deployedIndexes } = await import('../shared/db/backfill.ts');
  for (let waited = 0; ; waited += 15) {
    const building = (await deployedIndexes(tableName)).filter((i) => i.status !== 'ACTIVE');
    if (!building.length) return;
    process.stderr.write(
      `upgrade: waiting for ${building.map((i) => `${i.name} (${i.status})`).join(', ')} (${waited} s)\n`,
    );
    await sleep(15_000);
  }
}

async function main(): Promise<number> {
  const separator = process.argv.indexOf('--', 2);
  const own = separator < 0 ? process.argv.slice(2) : process.argv.slice(2, separator);
  const cdkOptions = separator < 0 ? [] : process.argv.slice(separator + 1);
  let flags;
  try {
    flags = parseArgs({
      args: own,
      options: { stack: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  if (flags.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // Before shared/config.ts is loaded (with backfill.ts): it reads the region once.
  await useResolvedRegion();
  const stackName = flags.stack ?? process.env.STACK_NAME ?? 'HawkApi';
  // No CDK CLI telemetry (cdk.json's cli-telemetry says the same; README "Deploy").
  const env = { ...process.env, STACK_NAME: stackName, CDK_DISABLE_CLI_TELEMETRY: 'true' };
  const outputs = await stackOutputs(stackName);
  if (!outputs?.TableName) {
    throw new UsageError(
      `no stack ${stackName} with a TableName output in this AWS account and region: for a first deploy run npx cdk deploy --all`,
    );
  }
  const tableName = outputs.TableName;
  await indexesActive(tableName);
  const { deployedIndexes } = await import('../shared/db/backfill.ts');
  const deployed = (await deployedIndexes(tableName)).map((i) => i.name);
  const steps = indexSteps(mainTable, deployed);
  if (holdsOperationRoutes(await stackResourceTypes(stackName), SERVICE_PATHS)) {
    process.stderr.write(
      `upgrade: stack ${stackName} holds the operations' routes itself: deploying the operations' nested stacks without routes first (API Gateway takes no second route with a key it has). The operations answer 404 until the next deploy creates their routes, a few minutes.\n`,
    );
    const code = await run(
      'npx',
      [
        'cdk',
        'deploy',
        stackName,
        '--exclusively',
        '--context',
        `${OPERATION_ROUTES_CONTEXT}=none`,
        // The table as it is: this deploy adds no index.
        ...(deployed.length ? ['--context', `${MAIN_TABLE_INDEXES_CONTEXT}=${deployed.join(',')}`] : []),
        ...cdkOptions,
      ],
      env,
    );
    if (code !== 0) {
      process.stderr.write(
        "upgrade: the deploy without the operations' routes failed (above): fix its cause and run npm run upgrade again.\n",
      );
      return 1;
    }
  }
  process.stderr.write(
    `upgrade: stack ${stackName}, table ${tableName}: ${steps.length ? `${steps.length} indexes to add, one deploy each` : 'every index is there'}\n`,
  );
  for (const [n, indexes] of steps.entries()) {
    process.stderr.write(`upgrade: step ${n + 1} of ${steps.length}: the table with ${indexes}\n`);
    const code = await run(
      'npx',
      [
        'cdk',
        'deploy',
        stackName,
        '--exclusively',
        '--context',
        `${MAIN_TABLE_INDEXES_CONTEXT}=${indexes}`,
        ...cdkOptions,
      ],
      env,
    );
    if (code !== 0) {
      process.stderr.write(
        `upgrade: the deploy of step ${n + 1} failed (above): fix its cause and run npm run upgrade again; it continues from the indexes the table has.\n`,
      );
      return 1;
    }
    await indexesActive(tableName);
  }
  if ((await run('npx', ['cdk', 'deploy', '--all', ...cdkOptions], env)) !== 0) {
    process.stderr.write(
      'upgrade: cdk deploy --all failed (above): fix its cause and run npm run upgrade again (until it succeeds, the operations may have no routes).\n',
    );
    return 1;
  }
  const migrated = await run(process.execPath, ['--import', 'tsx', 'scripts/migrate.ts', '--stack', stackName], env);
  if (migrated !== 0) {
    process.stderr.write(
      `upgrade: the backfill stopped (above): run npm run --silent migrate -- --stack ${stackName} to finish it.\n`,
    );
    return 1;
  }
  process.stderr.write(`upgrade: stack ${stackName} is upgraded and its items carry every index key.\n`);
  return 0;
}

runCli('upgrade', main);
