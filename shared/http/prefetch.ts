import { keys } from '../db/keys.ts';
import {
  prefetchFirstCall,
  prefetchItems,
  prefetchQuery,
  type OperationReads,
  type PrefetchInput,
  type Reads,
} from '../db/query.ts';
import { organizationAccessReads } from '../identity/membership-repository.ts';
import { hints } from '../identity/hints.ts';
import { pathParameterNames, type Route } from './route.ts';
import { pathParameterReader } from './path-parameters.ts';
import type { Caller } from '../context/caller.ts';
import type { LambdaEvent } from './types.ts';
import { UUID } from '../input/uuid.ts';

// The pipeline's prefetch: the reads an operation makes before its authorization decision, issued at once and
// together with the rate-limit update (middlewares.ts, admission), so that they cost one round trip instead of one
// each. From the route's path: `{orgId}` -> the organization and the caller's membership of it (the authorization
// read); `{appId}` -> the application and the organizations the caller was last seen in (hints.ts: the
// application's organization is known only once it is read). From the route's `audit`: the caller's user item, whose
// name and e-mail its audit entries record (middlewares.ts, auditActor). An operation adds its own (`operation(..., {
// prefetch })`). The operation's code then reads exactly what it always read, and finds these results
// (shared/db/prefetch.ts): what it answers, and when it refuses, does not change.

function readsFromPath(ids: Record<string, string>, caller: Caller | undefined): Reads {
  if (!caller) return {};
  if (ids.orgId) return { items: organizationAccessReads(caller.userId, [ids.orgId]) };
  if (ids.appId)
    return {
      items: [
        keys.application(ids.appId),
        ...organizationAccessReads(caller.userId, hints.organizationsOf(caller.userId)),
      ],
    };
  return {};
}

/** An operation that writes an audit entry: the caller's user item, for the entry's names (the Caller's `known`). */
const actorReads = (route: Route, caller: Caller | undefined): Reads =>
  route.audit && caller ? { items: [keys.user(caller.userId)] } : {};

/** The route's prefetch: issues its reads and the operation's own; their results wait in the request's scope. */
export function prefetcher(route: Route, operationReads?: OperationReads) {
  const ids = idParameters(route);
  return (event: LambdaEvent, input: Omit<PrefetchInput, 'ids'>): void => {
    const found = ids(event);
    const own = operationReads?.({ ...input, ids: found }) ?? {};
    const reads = [readsFromPath(found, input.caller), actorReads(route, input.caller), own];
    prefetchItems(
      reads.flatMap((r) => r.items ?? []),
      { consistent: own.consistentItems, rememberMs: own.rememberMs },
    );
    for (const query of reads.flatMap((r) => r.queries ?? [])) prefetchQuery(query);
    for (const query of reads.flatMap((r) => r.firstCalls ?? [])) prefetchFirstCall(query);
  };
}

/** The path's `...Id` parameters that are UUIDs, as API Gateway passed them (or from the raw path). */
function idParameters(route: Route): (event: LambdaEvent) => Record<string, string> {
  const names = pathParameterNames(route.path);
  const readPath = pathParameterReader(route);
  return (event) => {
    const { values } = readPath(event);
    const ids: Record<string, string> = {};
    names.forEach((name, i) => {
      const value = values[i];
      if (name.endsWith('Id') && value && UUID.test(value)) ids[name] = value;
    });
    return ids;
  };
}
