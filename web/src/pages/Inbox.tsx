import { useEffect, useMemo, useRef, useState } from 'react';
import { useParams } from 'react-router';
import type { Schemas } from '../api/client';
import { ReportForbidden, ReportScopeFilters, useFindingsReport } from '../components/findings-report';
import { Empty, QueryView } from '../components/states';
import { ALL_SEVERITIES, Pager, useTitle } from '../components/ui';
import { DataTable, type Column, type Paging } from '../components/DataTable';
import { findingColumns } from '../components/finding-columns';
import { TriageForm, type TriageBatch } from '../components/Triage';
import { useUrlState } from '../components/url-state';
import { useHasPermission } from '../permissions';
import { AssignForm, useMembers, type Member } from '../components/Assign';

// The triage inbox: the organization's untriaged findings (status NEW in the findings report, GET
// /api/v1/reports/org/{orgId}/findings, read:report), one row per finding of an environment however many URLs it
// has, selected with the keyboard or the mouse and triaged in bulk (bulkTriageFindings, per environment). The pages
// are the report's own pages (pageSize, pageToken): application and environment filter on the service, the others
// (severity, tool, age, due date) within the page, since the report has no such parameters.

type Row = Schemas['reports.CurrentFindingRow'];
const DAY_MS = 86_400_000;
const PAGE_SIZES = ['25', '100', '500', '1000'];
const AGES = [
  ['', 'Any age'],
  ['7', 'Older than 7 days'],
  ['30', 'Older than 30 days'],
  ['90', 'Older than 90 days'],
] as const;
const DUES = [
  ['', 'Any due date'],
  ['overdue', 'Overdue'],
  ['week', 'Due within 7 days'],
  ['none', 'No due date'],
] as const;
const TOOL_NAMES: Record<string, string> = {
  zap: 'ZAP',
  wapiti: 'Wapiti',
  nuclei: 'Nuclei',
  burp: 'Burp Suite',
  sarif: 'SARIF',
};

/** The tool that found a finding, from its plugin id: ZAP's are numbers, every other tool's `<tool>.` prefixed. */
export function toolOf(pluginId: string | undefined): string {
  const prefix = /^\d+$/.test(pluginId ?? '') ? 'zap' : (pluginId ?? '').split('.')[0]!.toLowerCase();
  return TOOL_NAMES[prefix] ?? prefix;
}

/** A finding of one environment, with every URL of it the page lists. */
export interface InboxItem {
  key: string;
  first: Row;
  urls: string[];
  tool: string;
  ageDays: number;
}

/** The page's untriaged rows as findings (by environment and hash), in the report's order. */
export function inboxItems(rows: Row[], now = Date.now()): InboxItem[] {
  const items = new Map<string, InboxItem>();
  for (const row of rows) {
    if (row.status !== 'NEW' || !row.findingHash) continue;
    const key = `${row.environmentId}:${row.findingHash}`;
    const url = `${row.findingMethod ?? ''} ${row.findingUrl ?? ''}`.trim();
    const known = items.get(key);
    if (known) known.urls.push(url);
    else
      items.set(key, {
        key,
        first: row,
        urls: [url],
        tool: toolOf(row.findingPluginId),
        ageDays: Math.floor((now - Number(row.findingFirstSeen ?? now)) / DAY_MS),
      });
  }
  return [...items.values()];
}

export interface InboxFilters {
  severity: string;
  tool: string;
  age: string;
  due: string;
  /** '' any, 'none' unassigned, else a member's user id. */
  assignee?: string;
}

/** Whether an item passes the filters applied within the page. */
export function matches(item: InboxItem, f: InboxFilters): boolean {
  const row = item.first;
  if (f.severity && row.findingRisk !== f.severity) return false;
  if (f.tool && item.tool !== f.tool) return false;
  if (f.age && item.ageDays < Number(f.age)) return false;
  if (f.due === 'overdue' && !row.overdue) return false;
  if (f.due === 'week' && (!row.dueDate || row.overdue || (row.daysLeft ?? 0) > 7)) return false;
  if (f.due === 'none' && row.dueDate) return false;
  if (f.assignee === 'none' && row.assigneeId) return false;
  if (f.assignee && f.assignee !== 'none' && row.assigneeId !== f.assignee) return false;
  return true;
}

export default function InboxPage() {
  useTitle('Triage inbox');
  const { orgId = '' } = useParams();
  const url = useUrlState();
  const allowed = useHasPermission(orgId, 'READ_REPORT');
  const canTriage = useHasPermission(orgId, 'WRITE_TRIAGE');
  const server = { appIds: url.get('app') || undefined, envs: url.get('env') || undefined };
  const filters: InboxFilters = {
    severity: url.get('severity'),
    tool: url.get('tool'),
    age: url.get('age'),
    due: url.get('due'),
    assignee: url.get('assignee'),
  };
  const members = useMembers(orgId);
  const pageSize = url.get('size', '500');
  const report = useFindingsReport(orgId, server, { pageSize, page: url.page }, allowed === true);
  if (allowed === false) return <ReportForbidden title="Triage inbox" what="The inbox" />;
  const filtered = Object.values({ ...filters, ...server }).some(Boolean);
  const clear = () => url.set({ app: '', env: '', severity: '', tool: '', age: '', due: '', assignee: '' });
  return (
    <>
      <h1>Triage inbox</h1>
      <p className="help">
        Every untriaged finding of the organization's environments (their latest completed scans), one row per finding
        of an environment. Select findings and triage them together: false positive, risk accepted until a day, or a
        comment.
      </p>
      <form className="filters" role="search" aria-label="Filter the inbox" onSubmit={(e) => e.preventDefault()}>
        <ReportScopeFilters orgId={orgId} url={url} />
        <Choice label="Severity" value={filters.severity} onChange={(severity) => url.set({ severity })}>
          {[['', 'Any'] as const, ...ALL_SEVERITIES.map((s) => [s, s] as const)]}
        </Choice>
        <Choice label="Tool" value={filters.tool} onChange={(tool) => url.set({ tool })}>
          {[
            ['', 'Any'] as const,
            ...[...new Set([...Object.values(TOOL_NAMES), filters.tool].filter(Boolean))].map((t) => [t, t] as const),
          ]}
        </Choice>
        <Choice label="Age" value={filters.age} onChange={(age) => url.set({ age })}>
          {AGES}
        </Choice>
        <Choice label="Due" value={filters.due} onChange={(due) => url.set({ due })}>
          {DUES}
        </Choice>
        <Choice label="Assignee" value={filters.assignee ?? ''} onChange={(assignee) => url.set({ assignee })}>
          {[
            ['', 'Anyone or nobody'] as const,
            ['none', 'Unassigned'] as const,
            ...members.map((m) => [m.id, m.name] as const),
          ]}
        </Choice>
        <Choice label="Findings per report page" value={pageSize} onChange={(size) => url.set({ size })}>
          {[...new Set([...PAGE_SIZES, pageSize])].map((s) => [s, s] as const)}
        </Choice>
        {filtered && (
          <button type="button" onClick={clear}>
            Clear the filters
          </button>
        )}
      </form>
      <QueryView query={report} what="the untriaged findings">
        {(data) => (
          <InboxList
            key={`${url.page}:${pageSize}`}
            orgId={orgId}
            items={inboxItems(data.findings ?? []).filter((i) => matches(i, filters))}
            canTriage={canTriage === true}
            members={members}
            filtered={filtered}
            onClear={clear}
            paging={{
              page: url.page,
              hasNext: (url.page + 1) * Number(pageSize) < (data.totalFindings ?? 0),
              onPage: url.setPage,
              total: `${data.totalFindings} report rows (every status)`,
            }}
          />
        )}
      </QueryView>
    </>
  );
}

function Choice({
  label,
  value,
  onChange,
  children,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: readonly (readonly [string, string])[];
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        {children.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * Keyboard shortcuts over the list's checkboxes: j / ↓ and k / ↑ move between findings, x selects or clears the
 * one in focus (as Space does), a selects every finding on the page, Escape clears the selection, t goes to the
 * triage form. Keys typed into a field or a list are theirs.
 */
function useShortcuts(
  table: React.RefObject<HTMLTableElement | null>,
  form: React.RefObject<HTMLDivElement | null>,
  actions: { all: () => void; none: () => void },
) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (/^(TEXTAREA|SELECT)$/.test(target.tagName)) return;
      if (target.tagName === 'INPUT' && (target as HTMLInputElement).type !== 'checkbox') return;
      const boxes = [...(table.current?.querySelectorAll<HTMLInputElement>('tbody input[type=checkbox]') ?? [])];
      const at = boxes.indexOf(target as HTMLInputElement);
      const move = (to: number) => boxes[Math.max(0, Math.min(boxes.length - 1, to))]?.focus();
      if (e.key === 'j' || (e.key === 'ArrowDown' && at >= 0)) move(at + 1);
      else if (e.key === 'k' || (e.key === 'ArrowUp' && at >= 0)) move(at < 0 ? 0 : at - 1);
      else if (e.key === 'x' && at >= 0) boxes[at]!.click();
      else if (e.key === 'a') actions.all();
      else if (e.key === 'Escape') actions.none();
      else if (e.key === 't') form.current?.querySelector('select')?.focus();
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [table, form, actions]);
}

function InboxList({
  orgId,
  items,
  canTriage,
  members,
  filtered,
  onClear,
  paging,
}: {
  orgId: string;
  items: InboxItem[];
  canTriage: boolean;
  members: Member[];
  filtered: boolean;
  onClear: () => void;
  paging: Paging;
}) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const table = useRef<HTMLTableElement>(null);
  const form = useRef<HTMLDivElement>(null);
  const chosen = items.filter((i) => selected.has(i.key));
  const actions = useMemo(
    () => ({ all: () => setSelected(new Set(items.map((i) => i.key))), none: () => setSelected(new Set()) }),
    [items],
  );
  useShortcuts(table, form, actions);
  const toggle = (key: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  const batches = new Map<string, TriageBatch>();
  for (const { first } of chosen) {
    const env = first.environmentId!;
    const batch = batches.get(env) ?? {
      target: { orgId, appId: first.applicationId!, envId: env },
      hashes: [],
    };
    batch.hashes.push(first.findingHash!);
    batches.set(env, batch);
  }
  return (
    <>
      {canTriage && (
        <div ref={form}>
          <p className="help" id="inbox-keys">
            Keys: <kbd>j</kbd>/<kbd>k</kbd> next and previous finding, <kbd>x</kbd> select it, <kbd>a</kbd> select all
            on this page, <kbd>Esc</kbd> clear the selection, <kbd>t</kbd> triage.
          </p>
          <TriageForm
            batches={[...batches.values()]}
            legend={
              chosen.length === 0
                ? 'Triage the selected findings (select some below)'
                : `Triage the ${chosen.length} selected ${chosen.length === 1 ? 'finding' : 'findings'}` +
                  (batches.size > 1 ? ` of ${batches.size} environments` : '')
            }
            onDone={actions.none}
          />
          <AssignForm batches={[...batches.values()]} members={members} onDone={actions.none} />
        </div>
      )}
      {items.length === 0 ? (
        <Empty title={filtered ? 'No untriaged finding on this page matches these filters.' : 'Nothing to triage.'}>
          {filtered ? (
            <button type="button" onClick={onClear}>
              Clear the filters
            </button>
          ) : (
            <p>Every finding of this report page is triaged.</p>
          )}
        </Empty>
      ) : (
        <InboxTable
          orgId={orgId}
          items={items}
          table={table}
          selected={canTriage ? selected : undefined}
          onToggle={toggle}
          onAll={(all) => (all ? actions.all() : actions.none())}
        />
      )}
      <Pager {...paging} />
    </>
  );
}

function InboxTable({
  orgId,
  items,
  table,
  selected,
  onToggle,
  onAll,
}: {
  orgId: string;
  items: InboxItem[];
  table: React.RefObject<HTMLTableElement | null>;
  selected?: Set<string>;
  onToggle: (key: string) => void;
  onAll: (all: boolean) => void;
}) {
  const allSelected = selected !== undefined && items.every((i) => selected.has(i.key));
  const columns = findingColumns(orgId, (item: InboxItem) => item.first);
  const select: Column<InboxItem> = {
    header: 'Select',
    heading: (
      <input
        type="checkbox"
        aria-label={`Select all ${items.length} findings on this page`}
        checked={allSelected}
        onChange={(e) => onAll(e.target.checked)}
      />
    ),
    cell: (item) => (
      <input
        type="checkbox"
        aria-label={`Select ${item.first.findingPluginName} at ${item.urls[0]} in ${item.first.applicationName} ${item.first.environmentName}`}
        checked={selected!.has(item.key)}
        onChange={() => onToggle(item.key)}
      />
    ),
  };
  return (
    <DataTable
      tableRef={table}
      className="cards-on-phone inbox"
      describedBy={selected ? 'inbox-keys' : undefined}
      caption={`Untriaged findings, ${items.length} on this page`}
      rows={items}
      rowKey={(item) => item.key}
      rowClassName={(item) => (selected?.has(item.key) ? 'selected' : undefined)}
      columns={[
        ...(selected ? [select] : []),
        columns.finding,
        columns.risk,
        { header: 'Tool', cell: (item) => item.tool },
        columns.application,
        columns.environment,
        {
          header: 'URLs',
          className: 'wrap',
          cell: (item) => (
            <>
              {item.urls[0]}
              {item.urls.length > 1 && <span className="muted"> and {item.urls.length - 1} more</span>}
            </>
          ),
        },
        {
          header: 'First seen',
          cell: (item) => `${item.first.findingFirstSeenISO8601?.slice(0, 10) || '—'} (${item.ageDays} days)`,
        },
        columns.due,
        { header: 'Assignee', cell: (item) => item.first.assigneeName || 'Unassigned' },
      ]}
    />
  );
}
