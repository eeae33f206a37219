// The operator CLI: `npm run --silent admin -- <command> [flags]`. Prints one JSON object on stdout.
// Against `npm start`: run it with the same DATA_DIR. Against AWS: set TABLE_NAME (and AWS credentials/region).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { configureEnvironment, dataDir, runningStack, ensureSigningKey } from './local/stack.ts';

interface Command {
  usage: string;
  flags: Record<string, { type: 'string' | 'boolean' }>;
  run(flags: Record<string, string | boolean | undefined>): Promise<object>;
}

const required = (flags: Record<string, string | boolean | undefined>, name: string): string => {
  const value = flags[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
};

class UsageError extends Error {}

const commands: Record<string, Command> = {
  'create-org': {
    usage: 'create-org --name <name> [--no-api-access]',
    flags: { name: { type: 'string' }, 'no-api-access': { type: 'boolean' } },
    run: async (f) => (await admin()).createOrganization({ name: required(f, 'name'), apiAccess: !f['no-api-access'] }),
  },
  'create-user': {
    usage: 'create-user --email <email> [--name <full name>]',
    flags: { email: { type: 'string' }, name: { type: 'string' } },
    run: async (f) => (await admin()).createUser({ email: required(f, 'email'), fullName: f.name as string | undefined }),
  },
  'add-member': {
    usage: 'add-member --org <orgId> --user <userId> [--permissions p1,p2,...]',
    flags: { org: { type: 'string' }, user: { type: 'string' }, permissions: { type: 'string' } },
    run: async (f) =>
      (await admin()).addMember({
        organizationId: required(f, 'org'),
        userId: required(f, 'user'),
        permissions: typeof f.permissions === 'string' ? f.permissions.split(',').map((p) => p.trim()).filter(Boolean) : undefined,
      }),
  },
  'remove-member': {
    usage: 'remove-member --org <orgId> --user <userId>',
    flags: { org: { type: 'string' }, user: { type: 'string' } },
    run: async (f) => (await admin()).removeMember({ organizationId: required(f, 'org'), userId: required(f, 'user') }),
  },
  'list-members': {
    usage: 'list-members --org <orgId>',
    flags: { org: { type: 'string' } },
    run: async (f) => (await admin()).listMembers({ organizationId: required(f, 'org') }),
  },
  'list-orgs': {
    usage: 'list-orgs',
    flags: {},
    run: async () => (await admin()).listOrganizations(),
  },
  'create-api-key': {
    usage: 'create-api-key --user <userId>',
    flags: { user: { type: 'string' } },
    run: async (f) => (await admin()).createApiKey({ userId: required(f, 'user') }),
  },
  'list-api-keys': {
    usage: 'list-api-keys --user <userId>',
    flags: { user: { type: 'string' } },
    run: async (f) => (await admin()).listUserApiKeys({ userId: required(f, 'user') }),
  },
  'revoke-api-key': {
    usage: 'revoke-api-key --user <userId> --key-id <keyId>',
    flags: { user: { type: 'string' }, 'key-id': { type: 'string' } },
    run: async (f) => (await admin()).revokeApiKey({ userId: required(f, 'user'), keyId: required(f, 'key-id') }),
  },
  'put-global-config': {
    usage: 'put-global-config --name <configName> --file <YAML file>',
    flags: { name: { type: 'string' }, file: { type: 'string' } },
    run: async (f) => {
      const file = required(f, 'file');
      const text = await readFile(file, 'utf8').catch((error: Error) => {
        throw new UsageError(`--file: cannot read ${file}: ${error.message}`);
      });
      return (await globalConfiguration()).putGlobalConfiguration({ name: required(f, 'name'), text });
    },
  },
  'delete-global-config': {
    usage: 'delete-global-config --name <configName>',
    flags: { name: { type: 'string' } },
    run: async (f) => (await globalConfiguration()).deleteGlobalConfiguration({ name: required(f, 'name') }),
  },
};

const admin = () => import('../shared/identity/admin.ts');
const globalConfiguration = () => import('../shared/hosted-assets/global-configuration-admin.ts');

function usage(): string {
  return `usage: npm run --silent admin -- <command> [flags]\n${Object.values(commands).map((c) => `  ${c.usage}`).join('\n')}`;
}

/** Points the data layer at the running `npm start` for DATA_DIR, or at AWS when TABLE_NAME is set. */
function connect(): void {
  const dir = dataDir();
  const stack = runningStack(dir);
  if (stack) {
    configureEnvironment({ dynamodbEndpoint: stack.dynamodbEndpoint, s3Endpoint: stack.s3Endpoint, signingKeyFile: ensureSigningKey(dir) });
  } else if (!process.env.TABLE_NAME && !process.env.DYNAMODB_ENDPOINT) {
    throw new UsageError(`No running \`npm start\` for DATA_DIR ${dir}; start it (or pass its DATA_DIR), or set TABLE_NAME to work against AWS`);
  }
}

async function main(): Promise<void> {
  const [name, ...rest] = process.argv.slice(2);
  const command = name ? commands[name] : undefined;
  if (!command) throw new UsageError(name ? `unknown command "${name}"\n${usage()}` : usage());
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({ args: rest, options: command.flags, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: npm run --silent admin -- ${command.usage}`);
  }
  connect();
  const result = await command.run(flags);
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().then(
  () => process.exit(0),
  (error) => {
    const status = (error as { statusCode?: number }).statusCode;
    process.stderr.write(`admin: ${(error as Error).message}\n`);
    process.exit(error instanceof UsageError || (status && status < 500) ? 2 : 1);
  },
);
