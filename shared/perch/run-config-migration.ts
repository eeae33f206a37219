import type { Outcome } from '../db/backfill.ts';
import { transactWrite } from '../db/transactions.ts';
import { parseConfiguration } from '../scan-configurations/model.ts';
import { migratedSecretWrites, migrationAttempts } from '../scans/configuration-migration.ts';
import { textWithSecretReferences } from '../scans/secret-references.ts';
import { heldScanSecrets } from '../scans/secret-store.ts';
import { getRun, runChange } from './repository.ts';

// A hosted run stored before literal credentials moved into scan secrets: its configuration's credentials move into
// its application's secrets, as its start would move them now (shared/scans/configuration-migration.ts, whose
// table migration step this is).

/** The application's hosted run (its configuration, a YAML text, edited in place). */
export function migrateRunConfig(item: Record<string, unknown>): Promise<Outcome> {
  const appId = item.applicationId as string;
  return migrationAttempts(async () => {
    const run = await getRun(appId, true);
    if (!run) return 'gone';
    const parsed = parseConfiguration(run.config).value;
    if (!parsed) return 'current';
    const owner = { appId, orgId: run.organizationId };
    const existing = await heldScanSecrets(owner);
    const { text, moved } = textWithSecretReferences(run.config, parsed, existing, true);
    if (!moved.length) return 'current';
    const writes = await migratedSecretWrites(owner, moved, existing, `the hosted run ${run.scanKey} of ${appId}`);
    if (!writes) return 'current';
    await transactWrite([...runChange(run, { ...run, config: text }), ...writes]);
    return 'updated';
  });
}
