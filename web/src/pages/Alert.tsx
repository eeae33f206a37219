import { Link, useParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { QueryView } from '../components/states';
import { Pager, SeverityBadge, useTitle } from '../components/ui';
import { DataTable } from '../components/DataTable';
import { useUrlState } from '../components/url-state';

export default function AlertPage() {
  const { orgId = '', scanId = '', pluginId = '' } = useParams();
  const url = useUrlState();
  const findings = useQuery({
    queryKey: ['alert', scanId, pluginId, url.page],
    queryFn: () => unwrap(api.GET('/api/v1/scan/{scanId}/alert/{pluginId}', { params: { path: { scanId, pluginId }, query: { pageSize: '50', pageToken: String(url.page) } } })),
    placeholderData: keepPreviousData,
  });
  useTitle(findings.data?.alert?.name ?? 'Alert');
  return (
    <QueryView query={findings} what="the alert's findings">
      {(data) => {
        const alert = data.alert!;
        return (
          <>
            <p className="crumbs">
              <Link to={`/org/${orgId}/scans`}>Scans</Link> / <Link to={`/org/${orgId}/scan/${scanId}`}>{alert.scan?.applicationName} scan</Link> /
            </p>
            <h1>{alert.name}</h1>
            <p>
              <SeverityBadge severity={alert.severity!} /> plugin {alert.pluginId}
              {alert.cweId && <> · CWE-{alert.cweId}</>} · {data.totalCount} {data.totalCount === '1' ? 'finding' : 'findings'}
            </p>
            {alert.description && <p className="prose">{alert.description}</p>}
            {alert.references!.length > 0 && (
              <ul className="refs">
                {alert.references!.map((ref) => (
                  <li key={ref}>{/^https?:\/\//i.test(ref) ? <a href={ref} rel="noopener noreferrer nofollow" target="_blank">{ref}</a> : ref}</li>
                ))}
              </ul>
            )}
            <h2>Findings</h2>
            <DataTable columns={['Method', 'URI', 'Status']}>
              {data.applicationScanAlertUris!.map((u) => (
                <tr key={u.alertUriId}>
                  <td>{u.requestMethod}</td>
                  <td className="wrap">
                    <Link to={`/org/${orgId}/scan/${scanId}/finding/${u.alertUriId}/${u.msgId}`}>{u.uri}</Link>
                  </td>
                  <td>{u.status === 'UNKNOWN' ? 'Untriaged' : u.status}</td>
                </tr>
              ))}
            </DataTable>
            <Pager page={url.page} hasNext={!!data.nextPageToken} onPage={url.setPage} total={data.totalCount} />
          </>
        );
      }}
    </QueryView>
  );
}
