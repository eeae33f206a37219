import { useState } from 'react';
import { useParams } from 'react-router';
import { api, describeError, unwrap, type Schemas } from '../api/client';
import { ReportForbidden, ReportScopeFilters, useFindingsReport } from '../components/findings-report';
import { Empty, QueryView } from '../components/states';
import { useTitle } from '../components/ui';
import { DataTable } from '../components/DataTable';
import { findingColumns } from '../components/finding-columns';
import { useUrlState } from '../components/url-state';
import { useHasPermission } from '../permissions';

const PAGE_SIZES = ['25', '50', '100', '500'];
const STATUS_LABELS: Record<string, string> = {
  NEW: 'New',
  FALSE_POSITIVE: 'False positive',
  RISK_ACCEPTED: 'Risk accepted',
  ASSIGNED: 'Assigned',
  UNKNOWN: 'Unknown',
};
/** Rows per request while downloading the CSV (the operation's largest page). */
const CSV_PAGE = 1000;

// The organization's findings report (GET /api/v1/reports/org/{orgId}/findings, read:report): the findings of each
// environment's latest completed scan, optionally as of a day, filtered by application and environment names.
export default function ReportPage() {
  useTitle('Findings report');
  const { orgId = '' } = useParams();
  const url = useUrlState();
  const allowed = useHasPermission(orgId, 'READ_REPORT');
  const filters = {
    appIds: url.get('app') || undefined,
    envs: url.get('env') || undefined,
    date: url.get('date') || undefined,
  };
  const pageSize = url.get('size', '50');
  const report = useFindingsReport(orgId, filters, { pageSize, page: url.page }, allowed === true);
  const filtered = Boolean(filters.appIds || filters.envs || filters.date);
  const columns = findingColumns(orgId, (f: Schemas['reports.CurrentFindingRow']) => f);
  if (allowed === false) return <ReportForbidden title="Findings report" what="The findings report" />;
  return (
    <>
      <h1>Findings report</h1>
      <p className="help">
        The findings of each environment's latest completed scan, with their triage status. With a date, as they stood
        at the end of that day (UTC).
      </p>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <ReportScopeFilters orgId={orgId} url={url} />
        <label>
          As of <input type="date" value={url.get('date')} onChange={(e) => url.set({ date: e.target.value })} />
        </label>
        <label>
          Per page
          <select value={pageSize} onChange={(e) => url.set({ size: e.target.value })}>
            {PAGE_SIZES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        {filtered && (
          <button type="button" onClick={() => url.set({ app: '', env: '', date: '' })}>
            Clear the filters
          </button>
        )}
      </form>
      <CsvDownload orgId={orgId} filters={filters} total={report.data?.totalFindings} />
      <QueryView query={report} what="the findings report">
        {(data) =>
          data.findings!.length === 0 ? (
            filtered ? (
              <Empty title="No finding matches these filters.">
                <button type="button" onClick={() => url.set({ app: '', env: '', date: '' })}>
                  Clear the filters
                </button>
              </Empty>
            ) : (
              <Empty title="No findings yet.">
                <p>
                  The report lists the findings of each environment's latest completed scan. Report a scan with HawkScan
                  or the reporting API (see README), or import a ZAP report:{' '}
                  <code>npm run scanner -- import --app &lt;appId&gt; --env &lt;name&gt; report.xml</code> (or{' '}
                  <code>POST /api/v1/app/{'{appId}'}/scan/import</code>).
                </p>
              </Empty>
            )
          ) : (
            <DataTable
              className="cards-on-phone"
              caption={`Findings, ${data.totalFindings} in all`}
              rows={data.findings!}
              rowKey={(f, i) => `${f.scanId}-${f.findingHash}-${i}`}
              columns={[
                columns.application,
                columns.environment,
                columns.finding,
                columns.risk,
                { header: 'URL', className: 'wrap', cell: (f) => `${f.findingMethod} ${f.findingUrl}` },
                { header: 'Status', cell: (f) => STATUS_LABELS[f.status ?? 'UNKNOWN'] ?? f.status },
                { header: 'First seen', cell: (f) => f.findingFirstSeenExcelFormat || '—' },
                columns.due,
                { header: 'Team', cell: (f) => f.team || '—' },
              ]}
              paging={{
                page: url.page,
                hasNext: (url.page + 1) * Number(pageSize) < (data.totalFindings ?? 0),
                onPage: url.setPage,
                total: String(data.totalFindings),
              }}
            />
          )
        }
      </QueryView>
    </>
  );
}

/**
 * The report as CSV, every page of it. The token is a bearer header, so the file is fetched (Accept: text/csv),
 * the pages joined under one header row, and handed to the browser as a Blob through an object URL.
 */
function CsvDownload({
  orgId,
  filters,
  total,
}: {
  orgId: string;
  filters: { appIds?: string; envs?: string; date?: string };
  total?: number;
}) {
  const [state, setState] = useState<{ busy: boolean; text: string; error: boolean }>({
    busy: false,
    text: '',
    error: false,
  });
  const download = async () => {
    setState({ busy: true, text: 'Preparing the CSV…', error: false });
    try {
      const parts: string[] = [];
      let rows = 0;
      let expected = Infinity;
      for (let page = 0; rows < expected; page++) {
        const { data, error, response } = await api.GET('/api/v1/reports/org/{orgId}/findings', {
          params: { path: { orgId }, query: { ...filters, pageSize: String(CSV_PAGE), pageToken: String(page) } },
          headers: { Accept: 'text/csv' },
          parseAs: 'text',
        });
        if (!response.ok)
          await unwrap(Promise.resolve({ data, error: typeof error === 'string' ? safeJson(error) : error, response }));
        expected = Number(response.headers.get('X-Total-Count') ?? 0);
        const text = data as unknown as string;
        const pageRows = countRecords(text);
        // Every page starts with the header row; keep the first page's only.
        parts.push(page === 0 ? text : text.slice(text.indexOf('\r\n') + 2));
        rows += pageRows;
        setState({ busy: true, text: `Preparing the CSV… ${rows} of ${expected} rows`, error: false });
        if (pageRows < CSV_PAGE) break; // a short page is the last
      }
      const blob = new Blob(parts, { type: 'text/csv;charset=utf-8' });
      const href = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = href;
      link.download = `findings-${filters.date || new Date().toISOString().slice(0, 10)}.csv`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(href), 60_000);
      setState({
        busy: false,
        text: `Downloaded ${rows} ${rows === 1 ? 'finding' : 'findings'} as CSV.`,
        error: false,
      });
    } catch (error) {
      setState({ busy: false, text: `The CSV could not be downloaded: ${describeError(error)}`, error: true });
    }
  };
  return (
    <div className="toolbar">
      <button type="button" onClick={() => void download()} disabled={state.busy || total === 0}>
        Download CSV{total !== undefined && total > 0 ? ` (${total} ${total === 1 ? 'finding' : 'findings'})` : ''}
      </button>
      <span role="status" aria-live="polite" className={state.error ? 'error' : 'muted'}>
        {state.text}
      </span>
    </div>
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Records (rows after the header) in RFC 4180 text: CRLFs outside quoted fields, minus the header's. */
export function countRecords(csv: string): number {
  let records = 0;
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && c === '\r' && csv[i + 1] === '\n') records++;
  }
  return Math.max(0, records - 1);
}
