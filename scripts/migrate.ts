// `npm run --silent migrate -- (--local | --stack <name> | --table <name> [--region <r>]) [--segments <n>] [--restart]`
// Gives the application and environment items written by earlier versions the index keys today's write paths give
// new items (shared/db/backfill.ts), so the lists find them, and moves stored configurations' literal credentials
// into scan secrets (shared/scans/configuration-migration.ts). Idempotent; resumable (a state file records the scan's
// progress). Progress on stderr, one JSON summary on stdout. Exit 0 done, 1 failed or unfinished (run it again),
// 2 bad usage.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  configureEnvironment,
  dataDir,
  ensureIntegrationKey,
  ensureLocalS3Credentials,
  ensureSigningKey,
  runningStack,
} from './local/stack.ts';
import { runCli, stackOutputs, UsageError, useResolvedRegion } from './aws-stack.ts';

const USAGE =
  'usage: npm run --silent migrate -- (--local | --stack <name> | --table <name> [--region <region>]) [--segments <n>] [--restart]';

/** Where the table is: the running `npm start` of DATA_DIR, a stack's TableName output, or a table by name. */
async function target(flags: {
  local?: boolean;
  stack?: string;
  table?: string;
  region?: string;
}): Promise<{ tableName: string; where: string }> {
  const chosen = [flags.local, flags.stack, flags.table].filter((f) => f !== undefined && f !== false).length;
  if (chosen !== 1) throw new UsageError(`name one table: --local, --stack or --table\n${USAGE}`);
  if (flags.region) process.env.AWS_REGION = flags.region;
  if (flags.local) {
    const dir = dataDir();
    const stack = runningStack(dir);
    if (!stack) {
      throw new UsageError(
        `no \`npm start\` is running for DATA_DIR ${dir}: start it (it upgrades a data directory from an earlier version itself) and run this again if needed`,
      );
    }
    // The step moving stored configurations' credentials reads the bucket and seals scan secrets, as the server does.
    configureEnvironment({
      dynamodbEndpoint: stack.dynamodbEndpoint,
      s3Endpoint: stack.s3Endpoint,
      s3Credentials: ensureLocalS3Credentials(dir),
      signingKeyFile: ensureSigningKey(dir),
      integrationKeyFile: ensureIntegrationKey(dir),
    });
    process.env.AWS_REGION ??= 'us-east-1';
    const tableName = process.env.TABLE_NAME || 'hawk-main';
    return { tableName, where: `${stack.dynamodbEndpoint} (npm start of ${dir})` };
  }
  if (!process.env.DYNAMODB_ENDPOINT) await useResolvedRegion();
  if (flags.stack) {
    const outputs = await stackOutputs(flags.stack);
    if (!outputs)
      throw new UsageError(`no stack ${flags.stack} in this AWS account and region (set AWS_REGION or pass --region)`);
    if (!outputs.TableName || !outputs.AssetsBucketName || !outputs.IntegrationKeyArn)
      throw new UsageError(
        `stack ${flags.stack} lacks the TableName, AssetsBucketName or IntegrationKeyArn output: deploy this version first`,
      );
    process.env.ASSETS_BUCKET = outputs.AssetsBucketName;
    process.env.INTEGRATION_KMS_KEY_ARN = outputs.IntegrationKeyArn;
    return { tableName: outputs.TableName, where: `stack ${flags.stack}` };
  }
  return {
    tableName: flags.table!,
    where: process.env.DYNAMODB_ENDPOINT ?? `AWS ${process.env.AWS_REGION ?? '(default region)'}`,
  };
}

const number = (n: number) => n.toLocaleString('en-US');
/** Configurations whose credentials the migration moved (shared/scans/configuration-migration.ts). */
const movedConfigurations = (stepped: Record<string, number>) =>
  (stepped.environment ?? 0) + (stepped.organizationAsset ?? 0) + (stepped.perchRun ?? 0);

async function main(): Promise<number> {
  let flags;
  try {
    flags = parseArgs({
      options: {
        local: { type: 'boolean' },
        stack: { type: 'string' },
        table: { type: 'string' },
        region: { type: 'string' },
        segments: { type: 'string' },
        restart: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
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
  const segments = flags.segments === undefined ? 4 : Number(flags.segments);
  if (!Number.isInteger(segments) || segments < 1 || segments > 64)
    throw new UsageError(`--segments must be an integer from 1 to 64, got "${flags.segments}"`);
  const { tableName, where } = await target(flags);

  // Imported once the environment names the table, its endpoint and region (shared/config.ts reads them at import):
  // the health aggregates' step writes through the repositories.
  process.env.TABLE_NAME = tableName;
  const { backfillIndexKeys, missingIndexes } = await import('../shared/db/backfill.ts');
  const { tableMigration } = await import('../shared/table-migration.ts');

  const missing = await missingIndexes(tableName);
  if (missing.length) {
    process.stderr.write(
      `migrate: table ${tableName} lacks the indexes ${missing.join(', ')}; the keys written now fill them once created (npm run upgrade deploys them one at a time).\n`,
    );
  }
  const identity = createHash('sha256')
    .update(`${process.env.DYNAMODB_ENDPOINT ?? process.env.AWS_REGION ?? ''}|${tableName}`)
    .digest('hex')
    .slice(0, 16);
  const stateFile = join(tmpdir(), `hawk-migrate-${identity}.json`);
  if (flags.restart) rmSync(stateFile, { force: true });

  process.stderr.write(
    `migrate: table ${tableName} (${where}), ${segments} scan segments; progress is kept in ${stateFile}\n`,
  );
  let lastPrint = 0;
  try {
    const summary = await backfillIndexKeys({
      ...tableMigration(tableName),
      segments,
      stateFile,
      onProgress: (s) => {
        if (Date.now() - lastPrint < 2000) return;
        lastPrint = Date.now();
        process.stderr.write(
          `migrate: ${number(s.scanned)} items read, ${number(s.updated)} updated, ${number(s.current)} already current (${s.segmentsDone} of ${s.segments} segments done)\n`,
        );
      },
    });
    process.stdout.write(`${JSON.stringify({ tableName, ...summary })}\n`);
    const byEntity = Object.entries(summary.updatedByEntity)
      .map(([entity, n]) => `${number(n)} ${entity}`)
      .join(', ');
    process.stderr.write(
      `migrate: done: ${number(summary.scanned)} items read; updated ${byEntity}; ${number(summary.current)} already current; ${number(summary.gone)} deleted meanwhile (left deleted); ${number(summary.reread)} read again after a concurrent change; ${number(summary.steppedByEntity.application ?? 0)} applications counted in the health aggregates; ${number(movedConfigurations(summary.steppedByEntity))} stored configurations' literal credentials moved into scan secrets.\n`,
    );
    if (summary.conflicts) {
      process.stderr.write(
        `migrate: ${number(summary.conflicts)} items kept changing while this ran and were left as they are: run the same command again.\n`,
      );
      return 1;
    }
    process.stderr.write(
      missing.length
        ? `migrate: next: deploy the missing indexes (npm run upgrade -- --stack <name>); the lists are complete once they are built.\n`
        : 'migrate: every item has its index keys: the lists are complete. Nothing more to do (running it again changes nothing).\n',
    );
    return 0;
  } catch (error) {
    process.stderr.write(
      `migrate: stopped: ${(error as Error).message}\nmigrate: fix the cause and run the same command again: it resumes where it stopped (--restart to begin again).\n`,
    );
    return 1;
  }
}

runCli('migrate', main);
