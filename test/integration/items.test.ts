import { describe, expect, it } from 'vitest';
import { createTenant } from './fixtures.ts';
import { createApp } from './scan-helpers.ts';
import { keys } from '../../shared/db/keys.ts';
import { getItem } from '../../shared/db/query.ts';
import { getApplication } from '../../shared/applications/application-repository.ts';
import { environmentsOfApp } from '../../shared/applications/environment-repository.ts';

// Records read back from the table carry the entity's fields only: fromItem (shared/db/items.ts) strips the table's
// and every index's key attributes, whichever indexes an item is in.
const storageAttributes = (item: object) =>
  Object.keys(item).filter((name) => /^(pk|sk|entity|gsi\d+c?(pk|sk))$/.test(name));

describe('items read back as records', () => {
  it('keep no key attribute of the table or of any index', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'stored', env: 'prod' });
    const app = (await getApplication(appId))!;
    const [env] = await environmentsOfApp(appId);
    for (const [record, key] of [
      [app, keys.application(appId)],
      [env, keys.environment(appId, env.environmentId)],
    ] as const) {
      const stored = (await getItem(key))!;
      // The stored items are in indexes beyond gsi1-3 (the compact list indexes), so the check covers them.
      expect(
        storageAttributes(stored).some((name) => /^gsi([4-9]|\d\d)/.test(name)),
        JSON.stringify(Object.keys(stored)),
      ).toBe(true);
      expect(storageAttributes(record)).toEqual([]);
      expect(Object.keys(record).sort()).toEqual(
        Object.keys(stored)
          .filter((name) => !storageAttributes(stored).includes(name))
          .sort(),
      );
    }
  });
});
