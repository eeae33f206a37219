import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, text, useTitle } from '../components/ui';
import { ConfirmButton } from '../components/dialog';
import { OasUpload } from './OasUpload';
import { TargetVerification } from './HostedScan';
import { AgentRequirements } from './HostedSettings';
import { ProfileScanPanel } from './ProfileScan';
import { ScanSecrets } from './ScanSecrets';
import { SlaOverrides } from './SlaOverrides';
import { useHasPermission } from '../permissions';

export default function ApplicationPage() {
  const { orgId = '', appId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const app = useQuery({
    queryKey: ['app', appId],
    queryFn: () => unwrap(api.GET('/api/v1/app/{appId}', { params: { path: { appId } } })),
  });
  const envs = useQuery({
    queryKey: ['app-envs', appId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/app/{appId}/env/list', {
          params: { path: { appId }, query: { pageSize: '1000', sortField: 'name', sortDir: 'asc' } },
        }),
      ),
  });
  const canReadPolicy = useHasPermission(orgId, 'READ_POLICY');
  useTitle(app.data?.name ?? 'Application');
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['app', appId] }),
      queryClient.invalidateQueries({ queryKey: ['app-envs', appId] }),
      queryClient.invalidateQueries({ queryKey: ['apps', orgId] }),
    ]);

  return (
    <QueryView query={app} what="the application">
      {(application) => (
        <>
          <p className="crumbs">
            <Link to={`/org/${orgId}/apps`}>Applications</Link> /
          </p>
          <h1>{application.name}</h1>
          <div className="toolbar">
            <details>
              <summary>Rename</summary>
              <ActionForm
                submitLabel="Save name"
                onSubmit={async (data) => {
                  await unwrap(
                    api.POST('/api/v1/app/{appId}', {
                      params: { path: { appId } },
                      body: { name: text(data, 'name') },
                    }),
                  );
                  await refresh();
                }}
              >
                <label>
                  New name <input name="name" required maxLength={255} defaultValue={application.name} />
                </label>
              </ActionForm>
            </details>
            <Link to={`/org/${orgId}/scans?app=${appId}`}>Scans of this application</Link>
            <Link to={`/org/${orgId}/report?app=${appId}`}>Its findings report</Link>
            <ConfirmButton
              label="Delete application"
              title={`Delete ${application.name}?`}
              typeToConfirm={application.name}
              onConfirm={async () => {
                await unwrap(api.DELETE('/api/v1/app/{appId}', { params: { path: { appId } } }));
                queryClient.removeQueries({ queryKey: ['app', appId] });
                await queryClient.invalidateQueries({ queryKey: ['apps', orgId] });
                navigate(`/org/${orgId}/apps`);
              }}
            >
              <p>
                This permanently deletes the application, its environments and all their scans and findings. It cannot
                be undone.
              </p>
            </ConfirmButton>
          </div>

          {application.applicationType === 'CLOUD' && <TargetVerification orgId={orgId} app={application} />}
          {application.applicationType === 'CLOUD' && <AgentRequirements orgId={orgId} appId={appId} />}
          {application.applicationType === 'CLOUD' && (
            <ProfileScanPanel
              orgId={orgId}
              appId={appId}
              appName={application.name ?? ''}
              environments={(envs.data?.environments ?? []).map((env) => env.environmentName ?? '')}
            />
          )}

          <h2>Environments</h2>
          <QueryView query={envs} what="environments">
            {(data) =>
              data.environments!.length === 0 ? (
                <Empty title="No environments yet.">
                  <p>Add one below; a scan reported for a new environment name also creates it.</p>
                </Empty>
              ) : (
                <ul className="rows">
                  {data.environments!.map((env) => (
                    <EnvironmentRow
                      key={env.environmentId}
                      orgId={orgId}
                      appId={appId}
                      envId={env.environmentId!}
                      name={env.environmentName!}
                      onChange={refresh}
                    />
                  ))}
                </ul>
              )
            }
          </QueryView>
          <ActionForm
            submitLabel="Add environment"
            onSubmit={async (data) => {
              await unwrap(
                api.POST('/api/v1/app/{appId}/env', { params: { path: { appId } }, body: { env: text(data, 'env') } }),
              );
              await refresh();
            }}
          >
            <label>
              Environment name <input name="env" required maxLength={255} pattern="[^,]*" title="no commas" />
            </label>
          </ActionForm>

          <ScanSecrets orgId={orgId} appId={appId} />

          <h2>API description</h2>
          <OasUpload appId={appId} />

          {canReadPolicy && <SlaOverrides orgId={orgId} appId={appId} />}
        </>
      )}
    </QueryView>
  );
}

function EnvironmentRow({
  orgId,
  appId,
  envId,
  name,
  onChange,
}: {
  orgId: string;
  appId: string;
  envId: string;
  name: string;
  onChange: () => Promise<unknown>;
}) {
  const [renaming, setRenaming] = useState(false);
  return (
    <li>
      <Link to={`/org/${orgId}/app/${appId}/env/${envId}`}>{name}</Link>
      <span className="row-actions">
        {renaming ? (
          <ActionForm
            submitLabel="Save"
            onSubmit={async (data) => {
              await unwrap(
                api.POST('/api/v1/app/{appId}/env/{envId}', {
                  params: { path: { appId, envId } },
                  body: { name: text(data, 'name') },
                }),
              );
              setRenaming(false);
              await onChange();
            }}
          >
            <label>
              New name for {name} <input name="name" required defaultValue={name} maxLength={255} />
            </label>
          </ActionForm>
        ) : (
          <button type="button" onClick={() => setRenaming(true)}>
            Rename<span className="visually-hidden"> {name}</span>
          </button>
        )}
        <ConfirmButton
          label={`Delete environment ${name}`}
          title={`Delete the environment ${name}?`}
          typeToConfirm={name}
          onConfirm={async () => {
            await unwrap(api.DELETE('/api/v1/app/{appId}/env/{envId}', { params: { path: { appId, envId } } }));
            await onChange();
          }}
        >
          <p>This permanently deletes the environment and its scans and findings.</p>
        </ConfirmButton>
      </span>
    </li>
  );
}
