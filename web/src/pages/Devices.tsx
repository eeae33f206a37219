import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { formatTime, useTitle } from '../components/ui';
import { DataTable } from '../components/DataTable';

// The organization's scanner agents (listDevices): each one's status, last heartbeat, labels and the scan it carries.
const LIVE_MS = 5000;

export default function DevicesPage() {
  const { orgId = '' } = useParams();
  useTitle('Scanner agents');
  const devices = useQuery({
    queryKey: ['devices', orgId],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/perch/devices', { params: { path: { orgId } } })),
    refetchInterval: LIVE_MS,
  });
  return (
    <>
      <h1>Scanner agents</h1>
      <p>
        Agents carry out the hosted scans of the organization. An agent carrying a scan and not heard from for the
        offline window (a minute unless configured) reads offline; an idle one five minutes later, since its last
        heartbeat is written every five minutes. Run one from a checkout of this service's repository (after{' '}
        <code>npm ci</code>), at its root, with an API key of a user who may write devices and scans:
      </p>
      {/* From the checkout, not npx: the scanner's package name is not published, and npx would run whatever
          someone registers under it. */}
      <pre className="code" tabIndex={0} role="region" aria-label="Agent command">
        {`HAWK_API_KEY=<key> HAWK_API_URL=${window.location.origin} npm run --silent scanner -- agent --org ${orgId}`}
      </pre>
      <p>
        Add <code>--labels net=internal,region=eu</code> to say where it runs: it then also takes the scans of
        applications whose hosted settings require those labels, which no other agent takes.
      </p>
      <QueryView query={devices} what="scanner agents">
        {(data) =>
          (data.devices ?? []).length === 0 ? (
            <Empty title="No scanner agent yet." />
          ) : (
            <DataTable
              caption={`Scanner agents, ${data.totalCount} in all`}
              rows={data.devices!}
              rowKey={(device) => device.deviceId!}
              columns={[
                { header: 'Name', cell: (device) => device.name },
                { header: 'Status', cell: (device) => (device.status === 'ONLINE' ? 'Online' : 'Offline') },
                { header: 'Last heartbeat', cell: (device) => formatTime(device.lastHeartbeatAt) },
                { header: 'Engines', cell: (device) => (device.engines ?? []).join(', ') || 'none installed' },
                { header: 'Labels', cell: (device) => (device.labels ?? []).join(', ') || 'none' },
                {
                  header: 'Current scan',
                  cell: (device) =>
                    device.applicationId ? (
                      <Link to={`/org/${orgId}/app/${device.applicationId}`}>scan {device.scanKey?.slice(0, 8)}</Link>
                    ) : (
                      'idle'
                    ),
                },
              ]}
            />
          )
        }
      </QueryView>
    </>
  );
}
