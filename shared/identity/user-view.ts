import { getTeams } from '../applications/team-repository.ts';
import { compareBy, nameOrderKey } from '../lists.ts';
import type { Membership } from '../context/caller.ts';
import type { Organization } from './organization-repository.ts';
import type { User } from './user-repository.ts';
import { publicPermissionName } from '../context/permissions.ts';
import { enumNames } from '../proto/encoding.ts';
import type { components } from '../../scanner/src/api/schema.gen.ts';

/** The public API's permission names; ours without one (write:repository) are not listed in the user's organizations. */
const PUBLIC_PERMISSIONS = new Set(enumNames('user.UserOrganization.Permissions'));
type PublicPermission = NonNullable<components['schemas']['user.UserOrganization']['permissions']>[number];
const isPublicPermission = (name: string): name is PublicPermission => PUBLIC_PERMISSIONS.has(name);

// user.User, as GET /api/v1/user and the organization's member list answer it.

export type UserTeamView = { id: string; name: string; organizationId: string };

/** user.UserTeam entries: the teams of these memberships, by name. */
export async function teamsOf(memberships: Membership[]): Promise<UserTeamView[]> {
  const teams = (await Promise.all(memberships.map((m) => getTeams(m.organizationId, m.teamIds)))).flat();
  return teams
    .sort(
      compareBy(
        (team) => nameOrderKey(team.name, team.teamId),
        (team) => team.teamId,
        'ASC',
      ),
    )
    .map((team) => ({ id: team.teamId, name: team.name, organizationId: team.organizationId }));
}

/** user.User: `organizations` with the user's role in each (from `memberships`), its teams. */
export function toUserView(
  user: User,
  organizations: Organization[],
  memberships: Membership[],
  teams: UserTeamView[],
) {
  const [firstName, ...rest] = user.fullName.split(' ');
  return {
    createdTimestamp: user.createdAt,
    external: {
      id: user.userId,
      email: user.email,
      fullName: user.fullName,
      firstName: firstName ?? '',
      lastName: rest.join(' '),
      organizations: organizations.map((organization) => {
        const membership = memberships.find((m) => m.organizationId === organization.organizationId);
        return {
          organization: {
            id: organization.organizationId,
            name: organization.name,
            createdTimestamp: organization.createdAt,
          },
          role: membership?.role ?? 'MEMBER',
          permissions: (membership?.permissions ?? []).map(publicPermissionName).filter(isPublicPermission),
        };
      }),
      teams,
    },
    provider: { slug: 'STACKHAWK' as const, created: user.createdAt },
  };
}
