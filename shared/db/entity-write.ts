import { config } from '../config.ts';
import { named } from './items.ts';
import { putNewItem, setAndRemove, type TransactItem } from './transactions.ts';

// The write of an entity with its derived data (docs/DATA-MODEL.md, Projections). Each derived structure is a
// projection: a pure function of the entity's record before and after the write that returns what it needs
// written: attributes of the entity's own item (index keys) and items of its own (postings, claims), with their
// conditions, named where a failed condition means something to the caller, and counters of items of their own to
// add to (the organization's counters). entityWrite merges them with the entity's own Put or Update into the items
// of one transaction, which the caller commits with its audit entry; entityWrites does so for several entities, one
// Update per counter item (DynamoDB refuses two operations on one item in a transaction).

/** What one projection needs of a write. */
export interface Projected {
  /** Attributes of the entity's own item to set (to these values). */
  set?: Record<string, unknown>;
  /** Attributes of the entity's own item to remove. */
  remove?: string[];
  /** Items of their own: puts, deletes, updates and condition checks. */
  items?: TransactItem[];
  /** Numbers to add to items of their own (ADD updates): netted per item with the other writes'. */
  counters?: CounterChange[];
}

/** What to add to the numbers of a counter item (created with its `entity` by the first write that adds to it). */
export interface CounterChange {
  key: { pk: string; sk: string };
  entity: string;
  add: Record<string, number>;
  /**
   * Numbers to add inside maps of the item, by document path (a scan's figures by status and severity): those that
   * net to 0 are left out. The maps must exist (`requires`): an ADD cannot create a path's missing parent.
   */
  addAt?: readonly { path: readonly string[]; delta: number }[];
  /** Document paths the Update is conditioned on existing (ANDed with `condition`; the union of the changes'). */
  requires?: readonly (readonly string[])[];
  /** Attributes to set with the numbers (a trend day item's `day`, a trend total's version). */
  set?: Record<string, unknown>;
  /** A condition of the Update (a trend total's version read), with the values (`:...`) it uses. */
  condition?: { expression: string; values?: Record<string, unknown> };
}

/**
 * `changes` netted per counter item: each item's deltas summed per attribute (every top-level attribute a change
 * names is kept, 0 included; a number inside a map only when it moves) and the paths they require joined; items
 * whose deltas are all 0 are left out.
 */
export function netCounters(changes: readonly CounterChange[]): CounterChange[] {
  type Netted = {
    net: CounterChange;
    at: Map<string, { path: readonly string[]; delta: number }>;
    requires: Map<string, readonly string[]>;
  };
  const byKey = new Map<string, Netted>();
  for (const change of changes) {
    const id = `${change.key.pk}|${change.key.sk}`;
    const fresh: Netted = {
      net: {
        key: change.key,
        entity: change.entity,
        add: {},
        ...(change.set && { set: change.set }),
        ...(change.condition && { condition: change.condition }),
      },
      at: new Map(),
      requires: new Map(),
    };
    const netted = byKey.get(id) ?? fresh;
    const { net, at, requires } = netted;
    for (const [name, delta] of Object.entries(change.add)) net.add[name] = (net.add[name] ?? 0) + delta;
    for (const { path, delta } of change.addAt ?? []) {
      const pathId = JSON.stringify(path);
      at.set(pathId, { path, delta: (at.get(pathId)?.delta ?? 0) + delta });
    }
    for (const path of change.requires ?? []) requires.set(JSON.stringify(path), path);
    byKey.set(id, netted);
  }
  return [...byKey.values()]
    .map(({ net, at, requires }) => {
      const addAt = [...at.values()].filter((a) => a.delta !== 0);
      return {
        ...net,
        ...(addAt.length > 0 && { addAt }),
        ...(requires.size > 0 && { requires: [...requires.values()] }),
      };
    })
    .filter((change) => Object.values(change.add).some((delta) => delta !== 0) || change.addAt);
}

/** The ADD Updates of `changes`, netted per counter item (netCounters). */
export function counterUpdates(changes: readonly CounterChange[]): TransactItem[] {
  return netCounters(changes).map(({ key, entity, add, addAt = [], requires = [], set = {}, condition }) => {
    const fields = Object.entries(add);
    const sets = Object.entries(set);
    // A path's segments (map keys are report text, e.g. plugin ids) each by a name of its own.
    const segments = new Map<string, string>();
    const pathOf = (path: readonly string[]) =>
      path
        .map((segment) => {
          if (!segments.has(segment)) segments.set(segment, `#p${segments.size}`);
          return segments.get(segment)!;
        })
        .join('.');
    const additions = [
      ...fields.map((_, i) => `#c${i} :c${i}`),
      ...addAt.map(({ path }, i) => `${pathOf(path)} :c${fields.length + i}`),
    ];
    const conditions = [
      ...(condition ? [condition.expression] : []),
      ...requires.map((path) => `attribute_exists(${pathOf(path)})`),
    ];
    return {
      Update: {
        TableName: config.tableName,
        Key: key,
        UpdateExpression: `SET ${['entity = :entity', ...sets.map((_, i) => `#s${i} = :s${i}`)].join(', ')} ADD ${additions.join(', ')}`,
        ...(conditions.length > 0 && { ConditionExpression: conditions.join(' AND ') }),
        ExpressionAttributeNames: {
          ...Object.fromEntries(sets.map(([name], i) => [`#s${i}`, name])),
          ...Object.fromEntries(fields.map(([name], i) => [`#c${i}`, name])),
          ...Object.fromEntries([...segments].map(([segment, name]) => [name, segment])),
        },
        ExpressionAttributeValues: {
          ':entity': entity,
          ...Object.fromEntries(sets.map(([, value], i) => [`:s${i}`, value])),
          ...Object.fromEntries(fields.map(([, delta], i) => [`:c${i}`, delta])),
          ...Object.fromEntries(addAt.map(({ delta }, i) => [`:c${fields.length + i}`, delta])),
          ...condition?.values,
        },
      },
    };
  });
}

/** The writes of projections: their items, then their counters netted per counter item (counterUpdates). */
function projectedWrites(projected: readonly Projected[]): TransactItem[] {
  return [...projected.flatMap((p) => p.items ?? []), ...counterUpdates(projected.flatMap((p) => p.counters ?? []))];
}

/**
 * A derived structure: what a write from `before` to `after` (undefined: no such record) needs written, given what
 * else it reads (`context`: where the record is, what was read with it).
 */
export type Projection<E, C = void> = (before: E | undefined, after: E | undefined, context: C) => Projected;

/**
 * An entity kind and its projections, by name: the registry of what a write of it derives (docs/DATA-MODEL.md,
 * Projections). Each resource registers its kinds in its `entities.ts`, every file of a `projections/` folder in
 * exactly one kind (test/unit/projection-registry.test.ts); a projection is applied only through its kind, by
 * entityWrite / entityWrites (a stored entity's write) or derivedWrites / projectionOf (an entity that is not an
 * item of its own: a view over many records, e.g. an environment's trend inputs), each of which applies every
 * registered projection, in the registry's order.
 */
export interface EntityKind<E, C = void> {
  /** The entity's `entity` attribute (written when it is created), or the derived entity's name. */
  readonly entity: string;
  readonly projections: Readonly<Record<string, Projection<E, C>>>;
}

/** Registers an entity kind with its projections (see EntityKind). */
export const entityKind = <E, C = void>(
  entity: string,
  projections: Record<string, Projection<E, C>>,
): EntityKind<E, C> => Object.freeze({ entity, projections: Object.freeze({ ...projections }) });

/** What every projection of `kind` makes of a change from `before` to `after`, in the registry's order. */
function projectAll<E, C>(kind: EntityKind<E, C>, before: E | undefined, after: E | undefined, context: C) {
  return Object.values(kind.projections).map((project) => project(before, after, context));
}

/**
 * The registered projections of a derived entity `kind` (not an item of its own) as one projection's writes: for a
 * projection that derives through another kind (an environment's triage moves its trend figures), so that their
 * counters net with the rest of the write's.
 */
export function projectionOf<E, C>(
  kind: EntityKind<E, C>,
  before: E | undefined,
  after: E | undefined,
  context: C,
): Projected {
  const projected = projectAll(kind, before, after, context);
  return { items: projected.flatMap((p) => p.items ?? []), counters: projected.flatMap((p) => p.counters ?? []) };
}

/**
 * The writes of a derived entity's change (a kind whose records are not an item of their own: an environment's
 * findings and rules as the trends count them, a team's applications): every registered projection's items, then
 * their counters netted per counter item (counterUpdates).
 */
export function derivedWrites<E, C>(
  kind: EntityKind<E, C>,
  before: E | undefined,
  after: E | undefined,
  context: C,
): TransactItem[] {
  return projectedWrites(projectAll(kind, before, after, context));
}

/**
 * The attributes a projection keeps on the entity's own item (or the entity's own fields), `before` and `after` a
 * write: those whose value changes are set, and those `after` lacks (or has undefined) removed (`owned`: all of
 * these it lacks, when the record leaves the projection).
 */
export function attributeChange(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  owned?: readonly string[],
): Projected {
  const set = Object.fromEntries(
    Object.entries(after).filter(([name, value]) => value !== undefined && !sameValue(before[name], value)),
  );
  const remove = (owned ?? Object.keys(before).filter((name) => before[name] !== undefined)).filter(
    (name) => after[name] === undefined,
  );
  return { set, remove };
}

export interface EntityChange<E> {
  /** The entity's table key. */
  key: { pk: string; sk: string };
  /** The record as read (undefined: created by this write). */
  before: E | undefined;
  after: E;
  /** What the entity's own write is called in the transaction: a failed condition of it is reported by this name. */
  name: string;
  /**
   * The condition of a change (an Update: the item exists besides), on what the write was decided from, with the
   * names (`#...`) and values (`:...`) it uses.
   */
  condition?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
  /**
   * The entity's own write is a Put of the whole record (a record always written whole, e.g. a triage rule with its
   * history), conditioned on `condition` alone, or, without one, on the item not existing.
   */
  replace?: boolean;
}

/**
 * The write of an entity of `kind` from `change.before` to `change.after`: its own write (a Put of a new item, or an
 * Update of the fields that change) with its registered projections' attributes merged into it, then their items,
 * in the registry's order, then their counters' Updates.
 */
export function entityWrite<E extends object, C>(
  kind: EntityKind<E, C>,
  change: EntityChange<E>,
  context: C,
): TransactItem[] {
  return entityWrites(kind, [{ change, context }]);
}

/**
 * The writes of several entities of `kind` in one transaction: each one's own write and items (entityWrite), then
 * the counters of all of them, one Update per counter item.
 */
export function entityWrites<E extends object, C>(
  kind: EntityKind<E, C>,
  writes: readonly { change: EntityChange<E>; context: C }[],
): TransactItem[] {
  return projectedWrites(
    writes.flatMap(({ change, context }) => {
      const projected = projectAll(kind, change.before, change.after, context);
      return [{ items: [ownWrite(kind.entity, change, projected)] }, ...projected];
    }),
  );
}

/** The entity's own Put or Update, with the projections' attributes. */
function ownWrite<E extends object>(entity: string, change: EntityChange<E>, projected: Projected[]): TransactItem {
  const attributes = Object.assign({}, ...projected.map((p) => p.set ?? {})) as Record<string, unknown>;
  const removed = projected.flatMap((p) => p.remove ?? []).filter((name) => !(name in attributes));
  if (change.replace) {
    const item = { ...change.key, entity, ...change.after, ...attributes };
    if (!change.condition) return named(change.name, putNewItem(item));
    const { expression, names, values } = change.condition;
    const put: TransactItem = {
      Put: {
        TableName: config.tableName,
        Item: item,
        ConditionExpression: expression,
        ...(names && Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ...(values && Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      },
    };
    return named(change.name, put);
  }
  if (!change.before) return named(change.name, putNewItem({ ...change.key, entity, ...change.after, ...attributes }));
  const fields = attributeChange(change.before as Record<string, unknown>, change.after as Record<string, unknown>);
  const set = { ...fields.set, ...attributes };
  const remove = [...new Set([...fields.remove!.filter((name) => !(name in set)), ...removed])];
  const names: Record<string, string> = { ...change.condition?.names };
  const values: Record<string, unknown> = { ...change.condition?.values };
  const alias = (name: string, i: number) => {
    names[`#e${i}`] = name;
    return `#e${i}`;
  };
  const setClauses = Object.entries(set).map(([name, value], i) => {
    values[`:e${i}`] = value;
    return `${alias(name, i)} = :e${i}`;
  });
  const removeClauses = remove.map((name, i) => alias(name, setClauses.length + i));
  const condition = ['attribute_exists(pk)', ...(change.condition ? [change.condition.expression] : [])].join(' AND ');
  // Nothing changes: the write still stands for its condition.
  if (setClauses.length === 0 && removeClauses.length === 0) {
    const check: TransactItem = {
      ConditionCheck: {
        TableName: config.tableName,
        Key: change.key,
        ConditionExpression: condition,
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      },
    };
    return named(change.name, check);
  }
  const update: TransactItem = {
    Update: {
      TableName: config.tableName,
      Key: change.key,
      UpdateExpression: setClauses.length
        ? setAndRemove(setClauses, removeClauses)
        : `REMOVE ${removeClauses.join(', ')}`,
      ConditionExpression: condition,
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
    },
  };
  return named(change.name, update);
}

/**
 * Whether a stored value and a new one are the same, as DynamoDB would store them: undefined fields are not stored,
 * and a Set (a DynamoDB set, as lib-dynamodb reads it) compares by its members, which JSON alone writes as `{}`.
 */
const sameValue = (a: unknown, b: unknown) => a === b || canonical(a) === canonical(b);
const canonical = (value: unknown) =>
  JSON.stringify(value, (_, v: unknown) => (v instanceof Set ? { set: [...(v as Set<unknown>)].sort() } : v));
