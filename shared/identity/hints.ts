// What this process last saw of a user's organizations and of an API key's user: only hints of which membership
// and organization items to read together with a request's other reads (shared/http/prefetch.ts), so that the
// reads before its authorization decision take one round trip. Every decision is made on the items read, never on
// a hint: a stale hint costs one more round trip, never a wrong answer. Bounded, like the rate limit's memory.
const MAX_ENTRIES = 10_000;
/** A user in more organizations than this gets no hint beyond them (each costs two item reads). */
export const MAX_ORGANIZATION_HINTS = 3;

const organizationsOfUser = new Map<string, string[]>();
const userOfApiKey = new Map<string, string>();

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
}

export const hints = {
  organizationsOf: (userId: string): string[] => organizationsOfUser.get(userId) ?? [],
  /** The user's organizations reachable through the API, as just read. */
  setOrganizationsOf(userId: string, orgIds: string[]): void {
    remember(organizationsOfUser, userId, orgIds.slice(0, MAX_ORGANIZATION_HINTS));
  },
  /** The user was just granted access in this organization: it goes first. */
  addOrganizationOf(userId: string, orgId: string): void {
    const known = organizationsOfUser.get(userId) ?? [];
    if (known[0] === orgId) return;
    remember(
      organizationsOfUser,
      userId,
      [orgId, ...known.filter((id) => id !== orgId)].slice(0, MAX_ORGANIZATION_HINTS),
    );
  },
  userOfApiKey: (secretHash: string): string | undefined => userOfApiKey.get(secretHash),
  setUserOfApiKey(secretHash: string, userId: string): void {
    remember(userOfApiKey, secretHash, userId);
  },
};
