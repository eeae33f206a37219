import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { QueryView } from '../components/states';
import { Pager, SeverityBadge, morePages, useTitle } from '../components/ui';
import { useUrlState } from '../components/url-state';
import { TriageForm } from '../components/Triage';
import { statusLabel, untriagedOf } from '../components/triage-status';
import { useHasPermission } from '../permissions';

export default function AlertPage() {
  const { orgId = '', scanId = '', pluginId = '' } = useParams();
  const url = useUrlState();
  const canTriage = useHasPermission(orgId, 'WRITE_TRIAGE');
  // Selected findings by alertUriId (a page's worth at most: selection is cleared when the page changes).
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const findings = useQuery({
    queryKey: ['alert', scanId, pluginId, url.page],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/scan/{scanId}/alert/{pluginId}', {
          params: { path: { scanId, pluginId }, query: { pageSize: '50', pageToken: String(url.page) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  useTitle(findings.data?.alert?.name ?? 'Alert');
  const toggle = (id: string, on: boolean) =>
    setSelected((previous) => {
      const next = new Set(previous);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  return (
    <QueryView query={findings} what="the alert's findings">
      {(data) => {
        const alert = data.alert!;
        const uris = data.applicationScanAlertUris!;
        const onPage = uris.filter((u) => selected.has(u.alertUriId!));
        const selectable = uris.filter((u) => u.findingHash);
        const allSelected = selectable.length > 0 && onPage.length === selectable.length;
        const untriaged = untriagedOf(alert.alertStatusStats ?? []);
        const target = { orgId, appId: alert.scan?.applicationId ?? '', envId: alert.scan?.envId ?? '' };
        return (
          <>
            <p className="crumbs">
              <Link to={`/org/${orgId}/scans`}>Scans</Link> /{' '}
              <Link to={`/org/${orgId}/scan/${scanId}`}>{alert.scan?.applicationName} scan</Link> /
            </p>
            <h1>{alert.name}</h1>
            <p>
              <SeverityBadge severity={alert.severity!} /> plugin {alert.pluginId}
              {alert.cweId && <> · CWE-{alert.cweId}</>} · {data.totalCount}{' '}
              {data.totalCount === '1' ? 'finding' : 'findings'} ·{' '}
              <span data-testid="alert-untriaged">{untriaged} untriaged</span>
            </p>
            {alert.description && <p className="prose">{alert.description}</p>}
            {alert.references!.length > 0 && (
              <ul className="refs">
                {alert.references!.map((ref) => (
                  <li key={ref}>
                    {/^https?:\/\//i.test(ref) ? (
                      <a href={ref} rel="noopener noreferrer nofollow" target="_blank">
                        {ref}
                      </a>
                    ) : (
                      ref
                    )}
                  </li>
                ))}
              </ul>
            )}
            <h2>Findings</h2>
            {canTriage === false && (
              <p className="help">Your role cannot triage findings (it lacks write:triage): you can read them.</p>
            )}
            {canTriage && (
              <TriageForm
                target={target}
                hashes={onPage.map((u) => u.findingHash!).filter(Boolean)}
                legend={
                  onPage.length === 0
                    ? 'Triage the selected findings (select some below)'
                    : `Triage the ${onPage.length} selected ${onPage.length === 1 ? 'finding' : 'findings'}`
                }
                onDone={() => setSelected(new Set())}
              />
            )}
            <table>
              <caption className="visually-hidden">Findings of {alert.name}</caption>
              <thead>
                <tr>
                  {canTriage && (
                    <th scope="col">
                      <input
                        type="checkbox"
                        aria-label={`Select all ${uris.length} findings on this page`}
                        checked={allSelected}
                        ref={(box) => {
                          if (box) box.indeterminate = onPage.length > 0 && !allSelected;
                        }}
                        onChange={(e) =>
                          setSelected(e.target.checked ? new Set(selectable.map((u) => u.alertUriId!)) : new Set())
                        }
                      />
                    </th>
                  )}
                  <th scope="col">Method</th>
                  <th scope="col">URI</th>
                  <th scope="col">Parameter</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {uris.map((u) => (
                  <tr key={u.alertUriId} className={selected.has(u.alertUriId!) ? 'selected' : undefined}>
                    {canTriage && (
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`Select ${u.requestMethod} ${u.uri}${u.param ? ` ${u.param}` : ''}`}
                          checked={selected.has(u.alertUriId!)}
                          onChange={(e) => toggle(u.alertUriId!, e.target.checked)}
                          disabled={!u.findingHash}
                        />
                      </td>
                    )}
                    <td>{u.requestMethod}</td>
                    <td className="wrap">
                      <Link
                        to={`/org/${orgId}/scan/${scanId}/finding/${u.alertUriId}/${u.msgId}?plugin=${encodeURIComponent(pluginId)}&page=${url.page}`}
                      >
                        {u.uri}
                      </Link>
                    </td>
                    <td className="wrap">{u.param ? <code>{u.param}</code> : '—'}</td>
                    <td>
                      {statusLabel(u.status)}
                      {u.matchedRuleNote && <span className="muted wrap note"> “{u.matchedRuleNote}”</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager
              page={url.page}
              hasNext={morePages(url.page, 50, data.totalCount)}
              onPage={(p) => {
                setSelected(new Set());
                url.setPage(p);
              }}
              total={data.totalCount}
            />
          </>
        );
      }}
    </QueryView>
  );
}
