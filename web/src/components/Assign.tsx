import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, describeError, unwrap } from '../api/client';
import { useHasPermission } from '../permissions';
import { useUser } from '../user';
import type { TriageBatch } from './Triage';

// Assignees (assignFindings, ours; docs/API.md, Assignees): who is to act on a finding, a member of the
// organization. The inbox assigns its selection with AssignForm and filters by assignee.

/** Findings one assignFindings request names at most. */
const MAX_ASSIGNED = 100;

export interface Member {
  id: string;
  name: string;
}

/**
 * The organization's members to assign to: the member list (read:member), or the caller alone when they may not
 * read it.
 */
export function useMembers(orgId: string): Member[] {
  const canRead = useHasPermission(orgId, 'READ_MEMBER');
  const me = useUser().data?.user?.external;
  const members = useQuery({
    queryKey: ['assignable-members', orgId],
    enabled: canRead === true,
    queryFn: () =>
      unwrap(api.GET('/api/v1/org/{orgId}/members', { params: { path: { orgId }, query: { pageSize: '1000' } } })),
  });
  const listed = (members.data?.users ?? []).map((u) => ({
    id: u.external?.id ?? '',
    name: u.external?.fullName || u.external?.email || u.external?.id || '',
  }));
  const all = listed.length ? listed : me?.id ? [{ id: me.id, name: me.fullName || me.email || me.id }] : [];
  return all.filter((m) => m.id).sort((a, b) => a.name.localeCompare(b.name));
}

export function AssignForm({
  batches,
  members,
  onDone,
}: {
  batches: TriageBatch[];
  members: Member[];
  onDone?: () => void;
}) {
  const queryClient = useQueryClient();
  const [assignee, setAssignee] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const count = batches.reduce((n, b) => n + new Set(b.hashes).size, 0);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (count === 0) return;
    setBusy(true);
    setOutcome(null);
    const who = assignee ? (members.find((m) => m.id === assignee)?.name ?? assignee) : '';
    try {
      let done = 0;
      for (const { target, hashes } of batches) {
        const unique = [...new Set(hashes)];
        for (let i = 0; i < unique.length; i += MAX_ASSIGNED) {
          const answer = await unwrap(
            api.POST('/api/v1/org/{orgId}/app/{appId}/env/{envId}/findings/assignee', {
              params: { path: target },
              body: { findingHashes: unique.slice(i, i + MAX_ASSIGNED), assigneeId: assignee },
            }),
          );
          done += (answer.results ?? []).filter((r) => r.success).length;
        }
      }
      const what = `${done} ${done === 1 ? 'finding' : 'findings'}`;
      setOutcome({ ok: done === count, text: who ? `Assigned ${what} to ${who}.` : `Unassigned ${what}.` });
      await queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'user' });
      onDone?.();
    } catch (error) {
      setOutcome({ ok: false, text: `Assigning failed: ${describeError(error)}` });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="triage" onSubmit={submit}>
      <fieldset>
        <legend>{count ? `Assign the ${count} selected` : 'Assign the selected findings (select some below)'}</legend>
        <label>
          Assign to
          <select value={assignee} onChange={(e) => setAssignee(e.target.value)}>
            <option value="">Nobody (unassign)</option>
            {members.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy || count === 0}>
          {busy ? 'Assigning…' : 'Assign'}
        </button>
      </fieldset>
      <div role="status" aria-live="polite" className="triage-outcome">
        {outcome && <p className={outcome.ok ? 'ok' : 'error'}>{outcome.text}</p>}
      </div>
    </form>
  );
}
