// The operator CLI: `npm run --silent admin -- <command> [flags]`. Prints one JSON object on stdout.
// Against `npm start`: run it with the same DATA_DIR. Against AWS: STACK_NAME=<stack> (the names are read from the
// stack's outputs) or TABLE_NAME and ASSETS_BUCKET, with the usual AWS credentials and region.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { runCli, stackOutputs, UsageError, useResolvedRegion } from './aws-stack.ts';
import {
  configureEnvironment,
  dataDir,
  runningStack,
  ensureLocalS3Credentials,
  ensureSigningKey,
  ensureIntegrationKey,
} from './local/stack.ts';

interface Command {
  usage: string;
  /** One line: what the command does. */
  summary: string;
  flags: Record<string, { type: 'string' | 'boolean' }>;
  run(flags: Record<string, string | boolean | undefined>): Promise<object>;
}

const required = (flags: Record<string, string | boolean | undefined>, name: string): string => {
  const value = flags[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
};

const commands: Record<string, Command> = {
  'create-org': {
    usage: 'create-org --name <name> [--no-api-access]',
    summary: 'creates an organization (API access on unless --no-api-access)',
    flags: { name: { type: 'string' }, 'no-api-access': { type: 'boolean' } },
    run: async (f) => (await admin()).createOrganization({ name: required(f, 'name'), apiAccess: !f['no-api-access'] }),
  },
  'create-user': {
    usage: 'create-user --email <email> [--name <full name>]',
    summary: 'creates a user',
    flags: { email: { type: 'string' }, name: { type: 'string' } },
    run: async (f) =>
      (await admin()).createUser({ email: required(f, 'email'), fullName: f.name as string | undefined }),
  },
  'add-member': {
    usage:
      'add-member --org <orgId> --user <userId> [--role OWNER|ADMIN|MEMBER|READ_ONLY|SCANNER | --permissions p1,p2,...] [--replace]',
    summary:
      'makes a user a member (a named role, or these permissions; ADMIN by default); --replace to change an existing membership',
    flags: {
      org: { type: 'string' },
      user: { type: 'string' },
      role: { type: 'string' },
      permissions: { type: 'string' },
      replace: { type: 'boolean' },
    },
    run: async (f) =>
      (await admin()).addMember({
        organizationId: required(f, 'org'),
        userId: required(f, 'user'),
        roleName: typeof f.role === 'string' ? f.role : undefined,
        permissions:
          typeof f.permissions === 'string'
            ? f.permissions
                .split(',')
                .map((p) => p.trim())
                .filter(Boolean)
            : undefined,
        replace: f.replace === true,
      }),
  },
  'remove-member': {
    usage: 'remove-member --org <orgId> --user <userId>',
    summary: 'removes a membership (and its team places)',
    flags: { org: { type: 'string' }, user: { type: 'string' } },
    run: async (f) => (await admin()).removeMember({ organizationId: required(f, 'org'), userId: required(f, 'user') }),
  },
  'list-members': {
    usage: 'list-members --org <orgId>',
    summary: "lists an organization's members with their roles, permissions and teams",
    flags: { org: { type: 'string' } },
    run: async (f) => (await admin()).listMembers({ organizationId: required(f, 'org') }),
  },
  'list-orgs': {
    usage: 'list-orgs',
    summary: 'lists the organizations',
    flags: {},
    run: async () => (await admin()).listOrganizations(),
  },
  'create-api-key': {
    usage: 'create-api-key --user <userId>',
    summary: 'creates an API key for a user; prints it once (only its hash is stored)',
    flags: { user: { type: 'string' } },
    run: async (f) => (await admin()).createApiKey({ userId: required(f, 'user') }),
  },
  'list-api-keys': {
    usage: 'list-api-keys --user <userId>',
    summary: "lists a user's API keys (ids and creation times)",
    flags: { user: { type: 'string' } },
    run: async (f) => (await admin()).listUserApiKeys({ userId: required(f, 'user') }),
  },
  'revoke-api-key': {
    usage: 'revoke-api-key --user <userId> --key-id=<keyId>',
    summary: 'deletes an API key; its sessions end within a token lifetime',
    flags: { user: { type: 'string' }, 'key-id': { type: 'string' } },
    run: async (f) => (await admin()).revokeApiKey({ userId: required(f, 'user'), keyId: required(f, 'key-id') }),
  },
  'put-global-config': {
    usage: 'put-global-config --name <configName> --file <YAML file>',
    summary: 'publishes (or replaces) a global scan configuration',
    flags: { name: { type: 'string' }, file: { type: 'string' } },
    run: async (f) => {
      const file = required(f, 'file');
      const text = await readFile(file, 'utf8').catch((error: Error) => {
        throw new UsageError(`--file: cannot read ${file}: ${error.message}`);
      });
      return (await globalConfigurationChecks()).publishGlobalConfiguration({ name: required(f, 'name'), text });
    },
  },
  'delete-global-config': {
    usage: 'delete-global-config --name <configName>',
    summary: 'deletes a global scan configuration',
    flags: { name: { type: 'string' } },
    run: async (f) => (await globalConfiguration()).deleteGlobalConfiguration({ name: required(f, 'name') }),
  },
  'allow-scan-domain': {
    usage: 'allow-scan-domain --org <orgId> --domain <host>',
    summary:
      "allowlists a host for the organization's hosted scans: it counts as verified, private addresses (loopback too) included",
    flags: { org: { type: 'string' }, domain: { type: 'string' } },
    run: async (f) =>
      (await import('../shared/applications/scan-domains.ts')).allowScanDomain(
        required(f, 'org'),
        required(f, 'domain'),
      ),
  },
  'set-scan-concurrency': {
    usage: 'set-scan-concurrency --org <orgId> --limit <n>',
    summary:
      'sets how many hosted scans the organization runs at once (default PERCH_MAX_RUNNING_SCANS, 5); more wait in its queue',
    flags: { org: { type: 'string' }, limit: { type: 'string' } },
    run: async (f) =>
      (await import('../shared/perch/repository.ts')).setScanConcurrency(required(f, 'org'), required(f, 'limit')),
  },
};

const admin = () => import('../shared/identity/admin.ts');
const globalConfiguration = () => import('../shared/hosted-assets/global-configuration-admin.ts');
const globalConfigurationChecks = () => import('../shared/scans/global-configurations.ts');

function usage(): string {
  return [
    'usage: npm run --silent admin -- <command> [flags]      (admin -- <command> --help: that command)',
    ...Object.values(commands).map((c) => `  ${c.usage}\n      ${c.summary}`),
    'Works against the running `npm start` of DATA_DIR, or AWS with STACK_NAME=<stack> (or TABLE_NAME and ASSETS_BUCKET).',
  ].join('\n');
}

/** Points the data layer at the running `npm start` for DATA_DIR, or at the AWS stack. */
async function connect(): Promise<void> {
  const dir = dataDir();
  const stack = runningStack(dir);
  if (stack) {
    configureEnvironment({
      dynamodbEndpoint: stack.dynamodbEndpoint,
      s3Endpoint: stack.s3Endpoint,
      s3Credentials: ensureLocalS3Credentials(dir),
      signingKeyFile: ensureSigningKey(dir),
      integrationKeyFile: ensureIntegrationKey(dir),
    });
  } else if (process.env.STACK_NAME) {
    await useResolvedRegion();
    const outputs = await stackOutputs(process.env.STACK_NAME);
    if (!outputs) throw new UsageError(`no stack ${process.env.STACK_NAME} in this AWS account and region`);
    if (!outputs.TableName || !outputs.AssetsBucketName)
      throw new UsageError(`stack ${process.env.STACK_NAME} has no TableName/AssetsBucketName outputs`);
    process.env.TABLE_NAME = outputs.TableName;
    process.env.ASSETS_BUCKET = outputs.AssetsBucketName;
  } else if (!process.env.TABLE_NAME && !process.env.DYNAMODB_ENDPOINT) {
    throw new UsageError(
      `No running \`npm start\` for DATA_DIR ${dir}; start it (or pass its DATA_DIR), or set STACK_NAME=<stack> (or TABLE_NAME and ASSETS_BUCKET) to work against AWS`,
    );
  } else if (process.env.TABLE_NAME && !process.env.ASSETS_BUCKET) {
    throw new UsageError(
      'TABLE_NAME is set but ASSETS_BUCKET is not: set both (the stack outputs TableName and AssetsBucketName), or set STACK_NAME',
    );
  }
}

async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return;
  }
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command "${name}"\n${usage()}`);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`usage: npm run --silent admin -- ${command.usage}\n  ${command.summary}\n`);
    return;
  }
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({ args: rest, options: command.flags, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: npm run --silent admin -- ${command.usage}`);
  }
  await connect();
  const result = await command.run(flags);
  process.stdout.write(JSON.stringify(result) + '\n');
}

runCli('admin', main);
