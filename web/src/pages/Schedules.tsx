import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, describeError, unwrap, type Schemas } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, text } from '../components/ui';
import { ConfirmButton } from '../components/dialog';
import { RowsTable } from '../components/DataTable';
import { useHasPermission } from '../permissions';

// Scan schedules on a CLOUD application's environment (docs/HOSTED-SCANS.md, Schedules): the application's schedules
// of this environment with their next run and what their last time did; those who may write scans add, edit, pause,
// resume and remove them.

type Schedule = Schemas['hawk.Schedule'];

/** An ISO time of the schedules' answers, in the reader's locale; empty: none. */
const at = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
/** The reader's own time zone, the new schedule's default. */
const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function SchedulesPanel({ orgId, appId, envName }: { orgId: string; appId: string; envName: string }) {
  const queryClient = useQueryClient();
  const canWrite = useHasPermission(orgId, 'WRITE_SCAN');
  const schedules = useQuery({
    queryKey: ['schedules', appId],
    queryFn: () => unwrap(api.GET('/api/v1/app/{appId}/schedules', { params: { path: { appId } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['schedules', appId] });
  return (
    <section aria-labelledby="schedules">
      <h2 id="schedules">Scan schedules</h2>
      <QueryView query={schedules} what="scan schedules">
        {(data) => {
          const ours = (data.schedules ?? []).filter((schedule) => schedule.env === envName);
          return ours.length === 0 ? (
            <Empty title="No scan schedule for this environment.">
              <p>A schedule starts a hosted scan at the times of a cron expression, in a time zone.</p>
            </Empty>
          ) : (
            <RowsTable
              columns={['Times (cron)', 'Time zone', 'Kind', 'Next run', 'Last time', 'Actions']}
              caption={`Scan schedules of ${envName}`}
            >
              {ours.map((schedule) => (
                <ScheduleRow
                  key={schedule.id}
                  appId={appId}
                  schedule={schedule}
                  canWrite={canWrite === true}
                  onChange={refresh}
                />
              ))}
            </RowsTable>
          );
        }}
      </QueryView>
      {canWrite && (
        <details className="create">
          <summary>Add a schedule</summary>
          <ActionForm
            className="stack-form"
            submitLabel="Add schedule"
            onSubmit={async (form) => {
              const scanConfig = text(form, 'scanConfig');
              await unwrap(
                api.POST('/api/v1/app/{appId}/schedules', {
                  params: { path: { appId } },
                  body: {
                    env: envName,
                    cron: text(form, 'cron'),
                    timezone: text(form, 'timezone'),
                    kind: text(form, 'kind') === 'PROFILE' ? 'PROFILE' : 'SCAN',
                    enabled: form.get('paused') !== 'on',
                    ...(scanConfig ? { scanConfig } : {}),
                  },
                }),
              );
              await refresh();
            }}
          >
            <ScheduleFields />
            <label>
              <input type="checkbox" name="paused" /> Start paused
            </label>
          </ActionForm>
        </details>
      )}
    </section>
  );
}

/** The fields a schedule is made of, filled with `schedule`'s when editing it. */
function ScheduleFields({ schedule }: { schedule?: Schedule }) {
  return (
    <>
      <label>
        Times (cron: minute hour day month weekday)
        <input
          name="cron"
          required
          maxLength={100}
          defaultValue={schedule?.cron ?? '0 3 * * *'}
          spellCheck={false}
          className="code"
        />
      </label>
      <label>
        Time zone (IANA name)
        <input name="timezone" required maxLength={64} defaultValue={schedule?.timezone ?? localZone()} />
      </label>
      <label>
        Kind
        <select name="kind" defaultValue={schedule?.kind ?? 'SCAN'}>
          <option value="SCAN">Scan</option>
          <option value="PROFILE">Profile scan</option>
        </select>
      </label>
      <label>
        Organization scan configuration (optional)
        <input name="scanConfig" maxLength={255} defaultValue={schedule?.scanConfig ?? ''} />
      </label>
    </>
  );
}

function ScheduleRow({
  appId,
  schedule,
  canWrite,
  onChange,
}: {
  appId: string;
  schedule: Schedule;
  canWrite: boolean;
  onChange: () => Promise<unknown>;
}) {
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const path = { params: { path: { appId, scheduleId: schedule.id! } } };
  const name = `schedule ${schedule.cron}`;
  const setEnabled = async (enabled: boolean) => {
    setError(null);
    try {
      await unwrap(api.PATCH('/api/v1/app/{appId}/schedules/{scheduleId}', { ...path, body: { enabled } }));
      await onChange();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <tr>
      <td>
        <code>{schedule.cron}</code>
        {schedule.scanConfig ? <span className="muted"> with {schedule.scanConfig}</span> : null}
      </td>
      <td>{schedule.timezone}</td>
      <td>{schedule.kind === 'PROFILE' ? 'Profile scan' : 'Scan'}</td>
      <td data-testid="schedule-next">{schedule.enabled ? at(schedule.nextRunAt) : 'Paused'}</td>
      <td>
        {schedule.lastResult ? `${schedule.lastResult} ${at(schedule.lastResultAt)}` : '—'}
        {schedule.lastMessage ? <span className="muted"> {schedule.lastMessage}</span> : null}
      </td>
      <td>
        {canWrite && (
          <span className="row-actions">
            <button type="button" onClick={() => void setEnabled(!schedule.enabled)}>
              {schedule.enabled ? 'Pause' : 'Resume'}
              <span className="visually-hidden"> {name}</span>
            </button>
            <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
              Edit<span className="visually-hidden"> {name}</span>
            </button>
            <ConfirmButton
              label={`Remove ${name}`}
              title={`Remove the ${name}?`}
              onConfirm={async () => {
                await unwrap(api.DELETE('/api/v1/app/{appId}/schedules/{scheduleId}', path));
                await onChange();
              }}
            >
              <p>It starts no scan from now on. A scan it started goes on.</p>
            </ConfirmButton>
          </span>
        )}
        {error !== null && (
          <p role="alert" className="error">
            {describeError(error)}
          </p>
        )}
        {editing && (
          <div role="group" aria-label={`Edit ${name}`}>
            <ActionForm
              className="stack-form"
              submitLabel="Save schedule"
              onSubmit={async (form) => {
                await unwrap(
                  api.PATCH('/api/v1/app/{appId}/schedules/{scheduleId}', {
                    ...path,
                    body: {
                      cron: text(form, 'cron'),
                      timezone: text(form, 'timezone'),
                      kind: text(form, 'kind') === 'PROFILE' ? 'PROFILE' : 'SCAN',
                      scanConfig: text(form, 'scanConfig') || null,
                    },
                  }),
                );
                setEditing(false);
                await onChange();
              }}
            >
              <ScheduleFields schedule={schedule} />
            </ActionForm>
          </div>
        )}
      </td>
    </tr>
  );
}
