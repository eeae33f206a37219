import { badRequest, notFound } from '../errors.ts';
import { globalConfigurationDownload } from '../hosted-assets/global-configuration.ts';
import { putGlobalConfiguration } from '../hosted-assets/global-configuration-admin.ts';
import { requirePermissionInSomeOrganization } from '../identity/sessions.ts';
import { objectKeys } from '../storage/objects.ts';
import { readObjectText } from '../storage/objects-io.ts';
import { parseConfiguration } from '../scan-configurations/model.ts';
import type { Caller } from '../context/caller.ts';
import type { Permission } from '../context/permissions.ts';
import { refuseLiteralCredentials } from './organization-configurations.ts';
import { literalCredentialPaths } from './secret-references.ts';

// Global configurations and their credentials (docs/HOSTED-SCANS.md, "Scan configurations and their credentials"):
// every user of every organization may download one, and no organization's scan secrets could hold what it would
// move, so a literal credential is refused when it is published and a text holding one is never served.

/** Admin CLI put-global-config: publishes after checking it holds no literal credential. */
export async function publishGlobalConfiguration(input: { name: string; text: string }) {
  const { value } = parseConfiguration(input.text);
  const paths = value ? literalCredentialPaths(value) : [];
  if (paths.length)
    throw badRequest(
      `--file holds literal credentials (${paths.slice(0, 5).join(', ')}): a global configuration is readable by every user, so reference each as \${NAME}, resolved from the application's or the organization's scan secrets or the agent's environment`,
    );
  return putGlobalConfiguration(input);
}

/** GET /api/v1/global-configuration/{configName} (getGlobalConfiguration). */
export async function checkedGlobalConfigurationDownload(
  caller: Caller,
  permission: Permission,
  name: string,
  redirect: boolean,
) {
  await requirePermissionInSomeOrganization(caller, permission);
  const text = await readObjectText(objectKeys.globalConfig(name));
  if (text === undefined) throw notFound(`global configuration ${name} not found`);
  refuseLiteralCredentials(
    text,
    `global configuration ${name}`,
    'an operator publishes it again with references (npm run admin -- put-global-config)',
  );
  return globalConfigurationDownload(caller, permission, name, redirect);
}
