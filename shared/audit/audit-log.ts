import { auditEntriesOfOrg } from './repository.ts';
import { pageOf, v1NextPageToken } from '../lists.ts';
import type { AuditListQuery } from './inputs.ts';

// GET /api/v1/org/{orgId}/audit: the organization's user-activity entries (listAuditActivity,
// audit.ListAuditRecordsResponse; docs/API.md, Activity log).

export async function listAuditRecords(orgId: string, q: AuditListQuery) {
  const types = new Set<string>(q.types);
  const name = q.name?.toLowerCase();
  const email = q.email?.toLowerCase();
  const matches = (r: { userActivityType: string; userName: string; userEmail: string }) =>
    (types.size === 0 || types.has(r.userActivityType)) &&
    (!name || r.userName.toLowerCase().includes(name)) &&
    (!email || r.userEmail.toLowerCase().includes(email));
  // The whole filtered time range is read: totalCount (which clients use to count pages) needs all of it.
  const all = [];
  for await (const record of auditEntriesOfOrg(orgId, { start: q.start, end: q.end }, q.sortDir !== 'desc'))
    if (matches(record)) all.push(record);
  const request = { page: q.pageToken, size: q.pageSize };
  const page = pageOf(all, request);
  return {
    auditRecords: page.items,
    // "A value of -1 indicates there is no following page" (audit.ListAuditRecordsResponse): its end marker.
    nextPageToken: v1NextPageToken(request, page.totalCount, '-1'),
    totalCount: page.totalCount,
  };
}
