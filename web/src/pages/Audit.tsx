import { Fragment } from 'react';
import { useParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { formatTime, useTitle } from '../components/ui';
import { DataTable, totalPaging } from '../components/DataTable';
import { dayBound, useUrlState } from '../components/url-state';

export default function AuditPage() {
  useTitle('Audit log');
  const { orgId = '' } = useParams();
  const url = useUrlState();
  const query = {
    email: url.get('email') || undefined,
    types: url.get('types') || undefined,
    start: dayBound(url.get('from'), false),
    end: dayBound(url.get('to'), true),
    sortDir: url.get('dir') || 'desc',
    pageSize: '50',
    pageToken: String(url.page),
  };
  const records = useQuery({
    queryKey: ['audit', orgId, query],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/audit', { params: { path: { orgId }, query } })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <h1>Audit log</h1>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          User email{' '}
          <input type="search" value={url.get('email')} onChange={(e) => url.set({ email: e.target.value })} />
        </label>
        <label>
          Activity types{' '}
          <input
            value={url.get('types')}
            onChange={(e) => url.set({ types: e.target.value })}
            placeholder="e.g. APPLICATION_ADDED"
          />
        </label>
        <label>
          From <input type="date" value={url.get('from')} onChange={(e) => url.set({ from: e.target.value })} />
        </label>
        <label>
          To <input type="date" value={url.get('to')} onChange={(e) => url.set({ to: e.target.value })} />
        </label>
        <label>
          Order
          <select value={query.sortDir} onChange={(e) => url.set({ dir: e.target.value })}>
            <option value="desc">Newest first</option>
            <option value="asc">Oldest first</option>
          </select>
        </label>
      </form>
      <QueryView query={records} what="the audit log">
        {(data) =>
          data.auditRecords!.length === 0 ? (
            <Empty title="No activity matches.">
              <p>
                Widen the time range or clear the filters. Every change to the organization (applications, teams, scans,
                triage, configurations) is recorded here.
              </p>
            </Empty>
          ) : (
            <DataTable
              className="cards-on-phone"
              rows={data.auditRecords!}
              rowKey={(r) => r.id!}
              columns={[
                { header: 'When', cell: (r) => formatTime(r.timestamp) },
                { header: 'Who', cell: (r) => r.userEmail || r.userName },
                { header: 'What', cell: activityType },
                { header: 'Details', className: 'wrap', cell: (r) => <Details payload={r.payload} /> },
              ]}
              paging={totalPaging(url, 50, data.totalCount)}
            />
          )
        }
      </QueryView>
    </>
  );
}

/**
 * The record's activity type. Our entries are user activities: the public shape's organizationActivityType is then
 * its zero value, UNKNOWN, which says nothing (docs/API.md, Activity log).
 */
const activityType = (r: { organizationActivityType?: string; userActivityType?: string }) =>
  [r.userActivityType, r.organizationActivityType].find((t) => t && t !== 'UNKNOWN') ?? 'UNKNOWN';

/** Words of a payload's field name: `appName` reads "Application name", `envId` "Environment ID". */
function fieldLabel(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_]+/)
    .map(
      (w) =>
        ({ app: 'application', env: 'environment', org: 'organization', id: 'ID', url: 'URL' })[w.toLowerCase()] ??
        w.toLowerCase(),
    );
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A payload value as text: lists joined, objects as their fields. */
function valueText(value: unknown): string {
  if (Array.isArray(value)) return value.map(valueText).join(', ');
  if (value && typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => `${fieldLabel(k)}: ${valueText(v)}`)
      .join('; ');
  return String(value ?? '');
}

/** The record's payload (a JSON object as a string) as labelled fields. */
function Details({ payload }: { payload?: string }) {
  let fields: [string, unknown][];
  try {
    const parsed: unknown = JSON.parse(payload || '{}');
    fields = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : [['', parsed]];
  } catch {
    return <span>{payload}</span>;
  }
  return (
    <dl className="facts">
      {fields.map(([key, value]) => (
        <Fragment key={key}>
          <dt>{fieldLabel(key)}</dt>
          <dd>{valueText(value)}</dd>
        </Fragment>
      ))}
    </dl>
  );
}
