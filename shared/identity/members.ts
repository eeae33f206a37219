import { compareBy, pageOf, v1NextPageToken } from '../lists.ts';
import { getOrganizations, membershipsOfOrg } from './membership-repository.ts';
import { getUsers } from './user-repository.ts';
import { teamsOf, toUserView } from './user-view.ts';
import type { ListMembersQuery } from './inputs.ts';
import type { Caller } from '../context/caller.ts';

/**
 * GET /api/v1/org/{orgId}/members: the organization's members (user.User each, with this organization and their
 * teams in it). Reads the organization's memberships (one Query), their users (BatchGetItem) and the page's teams;
 * `pattern` (a case-insensitive part of the name or e-mail, plain text) and `roles` filter, then sort and page in memory.
 */
export async function listMembers(caller: Caller, orgId: string, q: ListMembersQuery) {
  await caller.authorize(orgId);
  const [memberships, [organization]] = await Promise.all([membershipsOfOrg(orgId), getOrganizations([orgId])]);
  const users = new Map((await getUsers(memberships.map((m) => m.userId))).map((u) => [u.userId, u]));
  const pattern = q.pattern?.toLowerCase() ?? '';
  const kept = memberships.filter((m) => {
    const user = users.get(m.userId);
    return (
      !!user &&
      (q.roles.length === 0 || q.roles.includes(m.role)) &&
      (!pattern || user.fullName.toLowerCase().includes(pattern) || user.email.toLowerCase().includes(pattern))
    );
  });
  kept.sort(
    compareBy(
      (m) => m.userId,
      (m) => m.userId,
      q.sortDir === 'desc' ? 'DESC' : 'ASC',
    ),
  );
  const request = { page: q.pageToken, size: q.pageSize };
  const page = pageOf(kept, request);
  const views = await Promise.all(
    page.items.map(async (m) => toUserView(users.get(m.userId)!, [organization], [m], await teamsOf([m]))),
  );
  return { users: views, nextPageToken: v1NextPageToken(request, page.totalCount), totalCount: page.totalCount };
}
