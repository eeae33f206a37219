import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { QueryView } from '../components/states';
import { OverviewLists } from '../components/OverviewLists';
import { TrendCharts } from '../components/TrendCharts';
import { useTitle } from '../components/ui';
import { useUrlState } from '../components/url-state';
import { useHasPermission } from '../permissions';

// The landing page (docs/GOVERNANCE.md, Trends and The overview): the organization's trends over 30, 90 or 365
// days, then the most overdue findings, the riskiest applications and the coverage gaps.

export const PERIODS = ['30', '90', '365'] as const;

export default function OverviewPage() {
  const { orgId = '' } = useParams();
  const url = useUrlState();
  const days = (PERIODS as readonly string[]).includes(url.get('days')) ? url.get('days') : '30';
  // The radio shows a choice at once; the URL (and so `days`) follows in a transition (React Router), and a URL
  // changed otherwise (back, a link) moves the choice with it.
  const [chosen, setChosen] = useState(days);
  useEffect(() => setChosen(days), [days]);
  const canReadReport = useHasPermission(orgId, 'READ_REPORT');
  useTitle('Overview');
  const trends = useQuery({
    queryKey: ['org-trends', orgId, days],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/trends', { params: { path: { orgId }, query: { days } } })),
  });
  const overview = useQuery({
    queryKey: ['org-overview', orgId],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/overview', { params: { path: { orgId } } })),
    enabled: canReadReport === true,
  });
  return (
    <>
      <h1>Overview</h1>
      <div className="toolbar">
        <fieldset className="periods">
          <legend>Period</legend>
          {PERIODS.map((p) => (
            <label key={p}>
              <input
                type="radio"
                name="period"
                value={p}
                checked={chosen === p}
                onChange={() => {
                  setChosen(p);
                  url.set({ days: p === '30' ? '' : p });
                }}
              />{' '}
              {p} days
            </label>
          ))}
        </fieldset>
        <Link to={`/org/${orgId}/executive-report?days=${days}`}>Printable report</Link>
      </div>
      <section aria-labelledby="trends-heading">
        <h2 id="trends-heading">Trends over the last {days} days</h2>
        <QueryView query={trends} what="the trends">
          {(t) => <TrendCharts days={t.days ?? []} scope={`the last ${days} days`} />}
        </QueryView>
      </section>
      {canReadReport === false ? (
        <p>The lists of overdue findings, riskiest applications and coverage gaps need the read:report permission.</p>
      ) : (
        <QueryView query={overview} what="the overview">
          {(o) => <OverviewLists orgId={orgId} overview={o} />}
        </QueryView>
      )}
    </>
  );
}
