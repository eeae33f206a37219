import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, describeError, unwrap, type Schemas } from '../api/client';
import { useHasPermission } from '../permissions';

// Triage through bulk triage by finding hash (POST .../findings/triage, write:triage): one request for up to 100
// findings, answered per action, so a partial failure names what failed and why.

export const TRIAGE_ACTIONS = [
  { value: 'FALSE_POSITIVE', label: 'False positive' },
  { value: 'RISK_ACCEPTED', label: 'Risk accepted' },
  { value: 'ADD_COMMENT', label: 'Comment' },
] as const;
type TriageAction = (typeof TRIAGE_ACTIONS)[number]['value'];
/** The service's bound on actions per request (shared/findings/inputs.ts). */
export const MAX_TRIAGE_ACTIONS = 100;

export interface TriageTarget {
  orgId: string;
  appId: string;
  envId: string;
}

type Result = Schemas['application.FindingTriageResult'];

/** Finding hashes of one environment: what one bulk triage request covers. */
export interface TriageBatch {
  target: TriageTarget;
  hashes: string[];
}

const DAY_MS = 86_400_000;
/** A day `days` from today, as a date input's value (YYYY-MM-DD, UTC). */
const dayFromToday = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);

/**
 * The risk-acceptance expiry picker (docs/GOVERNANCE.md, Risk acceptance that expires): a date, preset to the
 * organization's default length, bounded by its maximum (getSlaPolicy, read:policy), both said beside it. Empty:
 * the default applies.
 */
function ExpiryPicker({ orgId, value, onChange }: { orgId: string; value: string; onChange: (v: string) => void }) {
  const readable = useHasPermission(orgId, 'READ_POLICY');
  const policy = useQuery({
    queryKey: ['sla-policy', orgId],
    enabled: readable === true,
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/sla', { params: { path: { orgId } } })),
  });
  const { defaultDays, maxDays } = policy.data?.riskAcceptance ?? {};
  const preset = useRef(false);
  useEffect(() => {
    if (!preset.current && defaultDays) {
      preset.current = true;
      onChange(dayFromToday(defaultDays));
    }
  }, [defaultDays, onChange]);
  const helpId = useId();
  return (
    <span className="expiry">
      <label>
        Accepted until
        <input
          type="date"
          value={value}
          min={dayFromToday(1)}
          max={maxDays ? dayFromToday(maxDays) : undefined}
          onChange={(e) => onChange(e.target.value)}
          aria-describedby={helpId}
        />
      </label>
      <span className="help" id={helpId}>
        {defaultDays ? `Default ${defaultDays} days` : 'No default length'}
        {maxDays ? `, at most ${maxDays} days (${dayFromToday(maxDays)})` : ', no maximum'}
      </span>
    </span>
  );
}

/** What the user reads after a triage: all done, some failed (with each failure's reason), or none. */
export function summarize(results: Result[], label: string): { ok: boolean; text: string; failures: string[] } {
  const failed = results.filter((r) => !r.success);
  const done = results.length - failed.length;
  const failures = failed.map((r) => `${r.findingHash?.slice(0, 12)}…: ${r.error || 'not triaged'}`);
  const noun = (n: number) => (n === 1 ? 'finding' : 'findings');
  if (failed.length === 0) return { ok: true, text: `${label}: ${done} ${noun(done)} triaged.`, failures };
  if (done === 0) return { ok: false, text: `${label}: no finding was triaged (${failed.length} failed).`, failures };
  return {
    ok: false,
    text: `${label}: ${done} of ${results.length} ${noun(results.length)} triaged; ${failed.length} failed.`,
    failures,
  };
}

/**
 * The triage form for a set of finding hashes: an action, an optional note, one submit. After it, every query is
 * refetched (the alert's statuses, the scan's status counts, the environment's untriaged counts, the report).
 */
export function TriageForm({
  legend,
  onDone,
  ...selection
}: { legend: string; onDone?: () => void } & (
  { target: TriageTarget; hashes: string[] } | { batches: TriageBatch[] }
)) {
  const queryClient = useQueryClient();
  const [action, setAction] = useState<TriageAction>('FALSE_POSITIVE');
  const [note, setNote] = useState('');
  const [expiry, setExpiry] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string; failures: string[] } | null>(null);
  const batches = ('batches' in selection ? selection.batches : [selection]).map((b) => ({
    target: b.target,
    hashes: [...new Set(b.hashes)],
  }));
  const hashes = 'batches' in selection ? selection.batches.flatMap((b) => b.hashes) : selection.hashes;
  const unique = batches.flatMap((b) => b.hashes);
  const orgId = batches[0]?.target.orgId ?? ('target' in selection ? selection.target.orgId : '');
  // The chosen day at the present time of day (UTC): the maximum's last day is then within the maximum.
  const expiresAt =
    action === 'RISK_ACCEPTED' && expiry ? `${expiry}T${new Date().toISOString().slice(11, 19)}Z` : undefined;
  // After a bulk triage the selection is cleared and the submit button disabled: keyboard focus moves to the
  // outcome rather than being lost.
  const outcomeRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (outcome) outcomeRef.current?.focus();
  }, [outcome]);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (unique.length === 0) return;
    setBusy(true);
    setOutcome(null);
    const label = TRIAGE_ACTIONS.find((a) => a.value === action)!.label;
    try {
      const results: Result[] = [];
      for (const { target, hashes: batch } of batches)
        for (let i = 0; i < batch.length; i += MAX_TRIAGE_ACTIONS) {
          const answer = await unwrap(
            api.POST('/api/v1/org/{orgId}/app/{appId}/env/{envId}/findings/triage', {
              params: { path: target },
              body: {
                actions: batch
                  .slice(i, i + MAX_TRIAGE_ACTIONS)
                  .map((findingHash) => ({ findingHash, status: action, note, ...(expiresAt && { expiresAt }) })),
              },
            }),
          );
          results.push(...(answer.results ?? []));
        }
      const summary = summarize(results, label);
      setOutcome(summary);
      if (summary.ok) setNote('');
      await queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'user' });
      onDone?.();
    } catch (error) {
      setOutcome({ ok: false, text: `${label} failed: ${describeError(error)}`, failures: [] });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="triage" onSubmit={submit}>
      <fieldset>
        <legend>{legend}</legend>
        {hashes.length > unique.length && (
          <p className="help full">
            These {hashes.length} URIs are {unique.length} {unique.length === 1 ? 'finding' : 'findings'}: paths that
            differ only in ids are one finding, and triage applies to every URI of a finding in this environment.
          </p>
        )}
        <label>
          Triage as
          <select value={action} onChange={(e) => setAction(e.target.value as TriageAction)}>
            {TRIAGE_ACTIONS.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
        {action === 'RISK_ACCEPTED' && <ExpiryPicker orgId={orgId} value={expiry} onChange={setExpiry} />}
        <label className="grow">
          Note {action === 'ADD_COMMENT' ? '' : '(optional)'}
          <textarea
            value={note}
            onChange={(e) => setNote(e.target.value)}
            rows={2}
            maxLength={4096}
            required={action === 'ADD_COMMENT'}
          />
        </label>
        <button type="submit" disabled={busy || unique.length === 0}>
          {busy ? 'Triaging…' : unique.length > 1 ? `Triage ${unique.length} findings` : 'Triage'}
        </button>
      </fieldset>
      <div role="status" aria-live="polite" className="triage-outcome" ref={outcomeRef} tabIndex={-1}>
        {outcome && (
          <div className={outcome.ok ? 'ok' : 'error'}>
            <p>{outcome.text}</p>
            {outcome.failures.length > 0 && (
              <ul>
                {outcome.failures.map((f) => (
                  <li key={f}>{f}</li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
    </form>
  );
}
