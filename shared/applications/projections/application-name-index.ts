import { keys } from '../../db/keys.ts';
import { config } from '../../config.ts';
import { attributeChange, type Projected } from '../../db/entity-write.ts';
import type { TransactItem } from '../../db/transactions.ts';
import type { ApplicationRecord } from '../model.ts';

// The application's name trigram index (docs/DATA-MODEL.md, Projections; keys.applicationNameIndex): its name's
// first trigram as its own item's gsi7 entry and a posting item per further trigram. A name written before the
// index existed or created in bulk (`nameTrigrams` absent or false) has only the unindexed gsi7 entry, which every
// search reads, until the application is renamed. Its postings stay in its partition while its cascade delete
// runs, which removes them with everything else (the name search reads live applications only).

/** The index keys this projection keeps on the application's item (besides `nameTrigrams`: it has postings). */
export const NAME_INDEX_KEYS = ['gsi7pk', 'gsi7sk'] as const;

type Named = Pick<ApplicationRecord, 'organizationId' | 'applicationId' | 'name' | 'nameTrigrams'>;

/**
 * The index of a live application: the attributes of its own item and its posting items. `indexed: false`: the
 * unindexed entry alone. Reads the fields by name (the index backfill conditions its write on the fields read).
 */
export function entries(app: Named, indexed = app.nameTrigrams === true) {
  const { entity, postings, nameTrigrams } = keys.applicationNameIndex(
    app.organizationId,
    app.applicationId,
    app.name,
    indexed,
  );
  const posting = (key: Record<string, string>): Record<string, string> => ({
    ...key,
    entity: 'nameGram',
    applicationId: app.applicationId,
    name: app.name,
  });
  return { entity: { ...entity, nameTrigrams }, postings: postings.map(posting) };
}

/** The gsi7 entry of a live application's own item as stored (what the index backfill gives older items). */
export const entityKeys = (app: Named): Record<string, string> =>
  keys.applicationNameIndex(app.organizationId, app.applicationId, app.name, app.nameTrigrams === true).entity;

/**
 * The change of the index from `before` to `after`: a renamed application's name is indexed, and a created one's
 * unless it is created with `nameTrigrams: false` (in bulk: a transaction of many applications has no room for
 * their postings); the postings of the old name that the new one has not are deleted and the new ones put
 * (overwriting the shared ones, whose copy of the name changes).
 */
export function project(before: ApplicationRecord | undefined, after: ApplicationRecord | undefined): Projected {
  const live = !!after && !after.deleting;
  if (!live) {
    const was = before && !before.deleting ? entries(before).entity : {};
    return attributeChange(was, {}, NAME_INDEX_KEYS);
  }
  const nameWritten = before?.name !== after.name;
  const was = before && !before.deleting ? entries(before) : { entity: {}, postings: [] };
  const is = entries(after, before ? nameWritten || before.nameTrigrams === true : after.nameTrigrams !== false);
  const attributes = attributeChange(was.entity, is.entity);
  if (!nameWritten) return attributes;
  const kept = new Set(is.postings.map((p) => p.sk));
  const items: TransactItem[] = [
    ...was.postings
      .filter((p) => !kept.has(p.sk))
      .map(({ pk, sk }): TransactItem => ({ Delete: { TableName: config.tableName, Key: { pk, sk } } })),
    ...is.postings.map((Item): TransactItem => ({ Put: { TableName: config.tableName, Item } })),
  ];
  return { ...attributes, items };
}
