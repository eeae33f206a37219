import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

/** Every application of the organization, CLOUD ones too, sorted by name. */
export function useApplications(orgId: string) {
  return useQuery({
    queryKey: ['apps-all', orgId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/org/{orgId}/apps', {
          params: {
            path: { orgId },
            query: {
              pageSize: '1000',
              sortField: 'applicationName',
              applicationTypes: 'STANDARD,CLOUD', // hosted-scan (CLOUD) applications too
            },
          },
        }),
      ),
  });
}

/** The "Application" filter of the scans and report pages: every application of the organization, by name. */
export function ApplicationFilter({
  orgId,
  value,
  onChange,
}: {
  orgId: string;
  value: string;
  onChange: (appId: string) => void;
}) {
  const apps = useApplications(orgId);
  return (
    <label>
      Application
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">All</option>
        {apps.data?.applications?.map((a) => (
          <option key={a.applicationId} value={a.applicationId}>
            {a.name}
          </option>
        ))}
      </select>
    </label>
  );
}
