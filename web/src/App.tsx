import { lazy, Suspense, useEffect, useRef } from 'react';
import { Navigate, NavLink, Route, Routes, useLocation, useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import * as NavigationMenu from '@radix-ui/react-navigation-menu';
import { signOut, useSession } from './session';
import { useUser } from './user';
import { SignIn } from './pages/SignIn';
import { Loading, QueryView } from './components/states';

// Pages other than sign-in and the applications list load on demand, keeping the first page's JavaScript small.
const ApplicationsPage = lazy(() => import('./pages/Applications').then((m) => ({ default: m.ApplicationsPage })));
const ApplicationPage = lazy(() => import('./pages/Application'));
const EnvironmentPage = lazy(() => import('./pages/Environment'));
const EnvironmentsPage = lazy(() => import('./pages/Environments'));
const ScansPage = lazy(() => import('./pages/Scans'));
const ScanPage = lazy(() => import('./pages/Scan'));
const AlertPage = lazy(() => import('./pages/Alert'));
const FindingPage = lazy(() => import('./pages/Finding'));
const TeamsPage = lazy(() => import('./pages/Teams'));
const TeamPage = lazy(() => import('./pages/Team'));
const AuditPage = lazy(() => import('./pages/Audit'));
const HostedPage = lazy(() => import('./pages/Hosted'));
const ReportPage = lazy(() => import('./pages/Report'));
const InboxPage = lazy(() => import('./pages/Inbox'));
const SettingsPage = lazy(() => import('./pages/Settings'));
const DevicesPage = lazy(() => import('./pages/Devices'));
const MembersPage = lazy(() => import('./pages/Members'));
const IntegrationsPage = lazy(() => import('./pages/Integrations'));
const TrackerConnectionsPage = lazy(() => import('./pages/TrackerConnections'));
const OverviewPage = lazy(() => import('./pages/Overview'));
const ExecutiveReportPage = lazy(() => import('./pages/ExecutiveReport'));

export function App() {
  const session = useSession();
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!session.token) queryClient.clear(); // nothing of a previous session stays in memory
  }, [session.token, queryClient]);
  if (!session.token) return <SignIn notice={session.notice} />;
  return (
    <Routes>
      <Route path="/" element={<ChooseOrganization />} />
      <Route path="/org/:orgId/*" element={<Organization />} />
      <Route path="*" element={<Navigate to="/" replace />} />
    </Routes>
  );
}

/** `/`: straight to the only organization's overview, or a choice. */
function ChooseOrganization() {
  const user = useUser();
  return (
    <main id="main" className="narrow">
      <QueryView query={user} what="your organizations">
        {({ user }) => {
          const organizations = user?.external?.organizations ?? [];
          if (organizations.length === 1)
            return <Navigate to={`/org/${organizations[0]!.organization!.id}/overview`} replace />;
          if (organizations.length === 0)
            return (
              <p>
                Your user belongs to no organization yet: ask an organization's admin for an invitation, or an operator
                to add you (`npm run admin -- add-member`).
              </p>
            );
          return (
            <>
              <h1>Choose an organization</h1>
              <ul className="cards">
                {organizations.map((o) => (
                  <li key={o.organization!.id}>
                    <NavLink to={`/org/${o.organization!.id}/overview`}>
                      {o.organization!.name || o.organization!.id}
                    </NavLink>
                  </li>
                ))}
              </ul>
              <button type="button" onClick={signOut}>
                Sign out
              </button>
            </>
          );
        }}
      </QueryView>
    </main>
  );
}

/** The dashboard's sections, grouped by what people come for (one short column, whatever the number of pages). */
const SECTION_GROUPS: { name: string; links: [path: string, label: string][] }[] = [
  {
    name: 'Findings',
    links: [
      ['overview', 'Overview'],
      ['inbox', 'Triage inbox'],
      ['report', 'Findings report'],
    ],
  },
  {
    name: 'Scans',
    links: [
      ['scans', 'Scans'],
      ['devices', 'Scanner agents'],
      ['hosted', 'API descriptions'],
    ],
  },
  {
    name: 'Applications',
    links: [
      ['apps', 'Applications'],
      ['envs', 'Environments'],
      ['teams', 'Teams'],
    ],
  },
  {
    name: 'Integrations',
    links: [
      ['integrations', 'Integrations'],
      ['integrations/trackers', 'Issue trackers'],
    ],
  },
  {
    name: 'Settings',
    links: [
      ['members', 'Members'],
      ['audit', 'Audit log'],
      ['settings', 'Settings'],
    ],
  },
];

/**
 * The sections' column (Radix NavigationMenu: the arrow keys, Home and End move between its links, Tab leaves it).
 * Its list and items are plain elements (asChild), so each group stays a list named by its heading.
 */
function Sections({ base }: { base: string }) {
  return (
    <NavigationMenu.Root orientation="vertical" aria-label="Sections" className="sections">
      <NavigationMenu.List asChild>
        <div className="groups">
          {SECTION_GROUPS.map(({ name, links }) => (
            <NavigationMenu.Item key={name} asChild>
              <div>
                <p className="group-name" id={`nav-${name}`}>
                  {name}
                </p>
                <ul aria-labelledby={`nav-${name}`}>
                  {links.map(([path, label]) => (
                    <li key={path}>
                      <NavigationMenu.Link asChild>
                        <NavLink to={`${base}/${path}`} end={path === 'integrations'}>
                          {label}
                        </NavLink>
                      </NavigationMenu.Link>
                    </li>
                  ))}
                </ul>
              </div>
            </NavigationMenu.Item>
          ))}
        </div>
      </NavigationMenu.List>
    </NavigationMenu.Root>
  );
}

function Organization() {
  const { orgId = '' } = useParams();
  const user = useUser();
  const organizations = user.data?.user?.external?.organizations ?? [];
  const current = organizations.find((o) => o.organization?.id === orgId);
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  // After in-app navigation (not the first page), move focus to the new page's content, so keyboard and screen
  // reader users start there as after a full page load.
  const firstPage = useRef(true);
  useEffect(() => {
    if (firstPage.current) firstPage.current = false;
    else main.current?.focus();
  }, [location.pathname]);
  const base = `/org/${orgId}`;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">hawk-api</span>
        <span className="who">
          {organizations.length > 1 ? (
            <NavLink to="/">{current?.organization?.name ?? 'Organizations'}</NavLink>
          ) : (
            <span>{current?.organization?.name}</span>
          )}{' '}
          <span className="email">{user.data?.user?.external?.email}</span>{' '}
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <div className="shell">
        <Sections base={base} />
        <main id="main" ref={main} tabIndex={-1}>
          {user.isSuccess && !current ? (
            <p role="alert">
              This organization is not one of yours. <NavLink to="/">Choose one of your organizations</NavLink>.
            </p>
          ) : (
            <Suspense fallback={<Loading what="the page" />}>
              <Routes>
                <Route path="overview" element={<OverviewPage />} />
                <Route path="executive-report" element={<ExecutiveReportPage />} />
                <Route path="apps" element={<ApplicationsPage orgId={orgId} />} />
                <Route path="app/:appId" element={<ApplicationPage />} />
                <Route path="app/:appId/env/:envId" element={<EnvironmentPage />} />
                <Route path="envs" element={<EnvironmentsPage />} />
                <Route path="scans" element={<ScansPage />} />
                <Route path="scan/:scanId" element={<ScanPage />} />
                <Route path="scan/:scanId/alert/:pluginId" element={<AlertPage />} />
                <Route path="scan/:scanId/finding/:alertUriId/:messageId" element={<FindingPage />} />
                <Route path="inbox" element={<InboxPage />} />
                <Route path="report" element={<ReportPage />} />
                <Route path="teams" element={<TeamsPage />} />
                <Route path="team/:teamId" element={<TeamPage />} />
                <Route path="audit" element={<AuditPage />} />
                <Route path="hosted" element={<HostedPage />} />
                <Route path="settings" element={<SettingsPage />} />
                <Route path="devices" element={<DevicesPage />} />
                <Route path="members" element={<MembersPage />} />
                <Route path="integrations" element={<IntegrationsPage />} />
                <Route path="integrations/trackers" element={<TrackerConnectionsPage />} />
                <Route path="*" element={<Navigate to="overview" replace />} />
              </Routes>
            </Suspense>
          )}
        </main>
      </div>
    </>
  );
}
