import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { Empty } from './states';
import { ApplicationFilter } from './ApplicationFilter';
import type { useUrlState } from './url-state';

// The findings report (GET /api/v1/reports/org/{orgId}/findings, read:report) as the report and inbox pages read
// it: one of its pages, as JSON, the previous page kept on screen while the next loads.

export interface ReportFilters {
  appIds?: string;
  envs?: string;
  date?: string;
}

export function useFindingsReport(
  orgId: string,
  filters: ReportFilters,
  paging: { pageSize: string; page: number },
  enabled: boolean,
) {
  const { pageSize, page } = paging;
  return useQuery({
    queryKey: ['report', orgId, filters, pageSize, page],
    enabled,
    // JSON (the operation also answers text/csv, hence the union in its type).
    queryFn: async () =>
      (await unwrap(
        api.GET('/api/v1/reports/org/{orgId}/findings', {
          params: { path: { orgId }, query: { ...filters, pageSize, pageToken: String(page) } },
        }),
      )) as Schemas['reports.CurrentFindingsResponse'],
    placeholderData: keepPreviousData,
  });
}

/** A page built on the report, for a role without read:report. */
export function ReportForbidden({ title, what }: { title: string; what: string }) {
  return (
    <>
      <h1>{title}</h1>
      <Empty title="Your role cannot read reports.">
        <p>{what} needs the read:report permission: ask an owner or admin of the organization.</p>
      </Empty>
    </>
  );
}

/** The filters the report applies on the service: the application (by name) and environment names, in the URL. */
export function ReportScopeFilters({ orgId, url }: { orgId: string; url: ReturnType<typeof useUrlState> }) {
  return (
    <>
      <ApplicationFilter orgId={orgId} value={url.get('app')} onChange={(app) => url.set({ app })} />
      <label>
        Environments{' '}
        <input
          value={url.get('env')}
          onChange={(e) => url.set({ env: e.target.value })}
          placeholder="names, comma-separated"
        />
      </label>
    </>
  );
}
