import { wildcardMatcher } from '../input/wildcard.ts';
import { badRequest } from '../errors.ts';

// Teams' pure rules (docs/API.md, Team rules): the organization a body names, id lists, name search. Their records are
// in shared/applications/model.ts. Records, types and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel
// and other resources' model.ts, never a repository.

export function checkOrganization(bodyOrgId: string | null | undefined, orgId: string): void {
  if (bodyOrgId && bodyOrgId !== orgId.toLowerCase()) {
    throw badRequest(`organizationId: ${bodyOrgId} does not match the organization in the path (${orgId})`);
  }
}

export const without = (ids: string[], removed: string[]) => ids.filter((id) => !removed.includes(id));

/** `search`: a case-insensitive part of the name, in which `*` stands for any characters. */
export function namePattern(search: string | undefined): (name: string) => boolean {
  if (!search) return () => true;
  return wildcardMatcher(search, { anchored: false, ignoreCase: true });
}
