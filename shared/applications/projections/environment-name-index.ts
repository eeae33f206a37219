import { keys } from '../../db/keys.ts';
import { config } from '../../config.ts';
import { attributeChange, type Projected } from '../../db/entity-write.ts';
import type { TransactItem } from '../../db/transactions.ts';
import type { EnvironmentRecord } from '../model.ts';

// The environment's name trigram index (docs/DATA-MODEL.md, Projections; keys.environmentNameIndex): its name's
// first trigram as its own item's gsi7 entry and a posting item per further trigram, which the name search reads.
// A name written before the index existed (`nameTrigrams` absent) has only the unindexed gsi7 entry, which every
// search reads, until the environment is renamed.

/** The index keys this projection keeps on the environment's item (besides `nameTrigrams`: it has postings). */
export const NAME_INDEX_KEYS = ['gsi7pk', 'gsi7sk'] as const;

type Named = Pick<EnvironmentRecord, 'organizationId' | 'applicationId' | 'environmentId' | 'name' | 'nameTrigrams'>;

/**
 * The index of a live environment: the attributes of its own item and its posting items. `indexed: false`: the
 * unindexed entry alone. Reads the fields by name (the index backfill conditions its write on the fields read).
 */
export function entries(env: Named, indexed = env.nameTrigrams === true) {
  const { entity, postings, nameTrigrams } = keys.environmentNameIndex(
    env.organizationId,
    env.applicationId,
    env.environmentId,
    env.name,
    indexed,
  );
  const posting = (key: Record<string, string>): Record<string, string> => ({
    ...key,
    entity: 'nameGram',
    applicationId: env.applicationId,
    environmentId: env.environmentId,
    name: env.name,
  });
  return { entity: { ...entity, nameTrigrams }, postings: postings.map(posting) };
}

/** The gsi7 entry of a live environment's own item as stored (what the index backfill gives older items). */
export const entityKeys = (env: Named): Record<string, string> =>
  keys.environmentNameIndex(
    env.organizationId,
    env.applicationId,
    env.environmentId,
    env.name,
    env.nameTrigrams === true,
  ).entity;

/** A live environment's index in its state `env`, with a new or changed name indexed (none unless live). */
const indexOf = (env: EnvironmentRecord | undefined, nameWritten: boolean) =>
  env && !env.deleting ? entries(env, nameWritten || env.nameTrigrams === true) : { entity: {}, postings: [] };

/**
 * The change of the index from `before` to `after`: a created or renamed environment's name is indexed; the
 * postings of the old name that the new one has not are deleted and the new ones put (overwriting the shared
 * ones, whose copy of the name changes).
 */
export function project(before: EnvironmentRecord | undefined, after: EnvironmentRecord | undefined): Projected {
  const nameWritten = !!after && before?.name !== after.name;
  const was = indexOf(before, false);
  const is = indexOf(after, nameWritten);
  const attributes = attributeChange(was.entity, is.entity, after && !after.deleting ? undefined : NAME_INDEX_KEYS);
  if (!nameWritten && after && !after.deleting) return attributes;
  const kept = new Set(is.postings.map((p) => p.sk));
  const items: TransactItem[] = [
    ...was.postings
      .filter((p) => !kept.has(p.sk))
      .map(({ pk, sk }): TransactItem => ({ Delete: { TableName: config.tableName, Key: { pk, sk } } })),
    ...is.postings.map((Item): TransactItem => ({ Put: { TableName: config.tableName, Item } })),
  ];
  return { ...attributes, items };
}
