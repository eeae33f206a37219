import { useState } from 'react';
import { useParams } from 'react-router';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, describeError, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, text, useTitle } from '../components/ui';
import { DataTable, totalPaging } from '../components/DataTable';
import { useUrlState } from '../components/url-state';

// Hosted assets are served through short-lived presigned URLs (docs/HOSTED-ASSETS.md): the page asks for one
// when the user wants a download, rather than listing URLs that expire.
export default function HostedPage() {
  useTitle('API descriptions and configurations');
  const { orgId = '' } = useParams();
  const url = useUrlState();
  const list = useQuery({
    queryKey: ['oas-list', orgId, url.page],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/oas/{orgId}/list', {
          params: { path: { orgId }, query: { pageSize: '50', pageToken: String(url.page) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const [link, setLink] = useState<{ label: string; href: string } | null>(null);
  return (
    <>
      <h1>API descriptions</h1>
      <QueryView query={list} what="hosted API descriptions">
        {(data) =>
          data.oasFiles!.length === 0 ? (
            <Empty title="No hosted API descriptions yet.">
              <p>
                Upload one from an application's page (section “API description”) or with{' '}
                <code>POST /api/v1/oas/{'{appId}'}/upload</code>.
              </p>
            </Empty>
          ) : (
            <DataTable
              caption="Hosted API descriptions"
              rows={data.oasFiles!}
              rowKey={(f) => f.oasId!}
              columns={[
                { header: 'API description', cell: (f) => <code>{f.oasId}</code> },
                { header: 'Repository', cell: (f) => f.repositoryName || '—' },
                {
                  header: 'Download',
                  cell: (f) => (
                    <DownloadLink
                      name={f.oasId!}
                      onLink={setLink}
                      get={() =>
                        unwrap(api.GET('/api/v1/oas/{orgId}/{oasId}', { params: { path: { orgId, oasId: f.oasId! } } }))
                      }
                    />
                  ),
                },
              ]}
              paging={totalPaging(url, 50, data.totalCount)}
            />
          )
        }
      </QueryView>
      {link && (
        <p role="status">
          <a href={link.href} rel="noopener noreferrer">
            {link.label}
          </a>
        </p>
      )}
      <h2>Scan configurations</h2>
      <OrganizationConfigs orgId={orgId} onLink={setLink} />
      <h2>Global configurations</h2>
      <ConfigLookup orgId={orgId} />
    </>
  );
}

function ConfigLookup({ orgId }: { orgId: string }) {
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      <ActionForm
        submitLabel="Get global configuration"
        onSubmit={async (data) => {
          setError(null);
          try {
            const asset = await unwrap(
              api.GET('/api/v1/global-configuration/{configName}', {
                params: { path: { configName: text(data, 'name') }, query: { redirect: 'false' } },
              }),
            );
            setResult(asset.presignedDownloadUrl!);
          } catch (e) {
            setResult(null);
            setError(e);
          }
        }}
      >
        <label>
          Global configuration name <input name="name" required maxLength={255} />
        </label>
      </ActionForm>
      {result && (
        <p role="status">
          <a href={result} rel="noopener noreferrer">
            Download the configuration (link valid for a few minutes)
          </a>
        </p>
      )}
      {error !== null && (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      )}
      <p className="help">
        A scan's own configuration is shown from its scan page. Organization {orgId}'s global configurations are managed
        with <code>npm run admin -- put-global-config</code>.
      </p>
    </>
  );
}

/** The organization's named scan configurations: list, download links, and saving one (validated by the service). */
function OrganizationConfigs({
  orgId,
  onLink,
}: {
  orgId: string;
  onLink: (link: { label: string; href: string }) => void;
}) {
  const queryClient = useQueryClient();
  const configs = useQuery({
    queryKey: ['org-configs', orgId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/configuration/{orgId}/list', { params: { path: { orgId }, query: { pageSize: '100' } } }),
      ),
  });
  return (
    <>
      <QueryView query={configs} what="scan configurations">
        {(data) =>
          data.configs!.length === 0 ? (
            <Empty title="No scan configurations yet.">
              <p>Save one below; scans can then use it by name.</p>
            </Empty>
          ) : (
            <DataTable
              caption="Scan configurations"
              rows={data.configs!}
              rowKey={(c) => c.name!}
              columns={[
                { header: 'Name', cell: (c) => <code>{c.name}</code> },
                { header: 'Description', className: 'wrap', cell: (c) => c.description || '—' },
                {
                  header: 'Download',
                  cell: (c) => (
                    <DownloadLink
                      name={c.name!}
                      onLink={onLink}
                      get={() =>
                        unwrap(
                          api.GET('/api/v1/configuration/{orgId}/{configName}', {
                            params: { path: { orgId, configName: c.name! }, query: { redirect: 'false' } },
                          }),
                        )
                      }
                    />
                  ),
                },
              ]}
            />
          )
        }
      </QueryView>
      <details className="create">
        <summary>Save a scan configuration</summary>
        <ActionForm
          className="stack-form"
          submitLabel="Save configuration"
          onSubmit={async (data) => {
            await unwrap(
              api.POST('/api/v1/configuration/{orgId}/update', {
                params: { path: { orgId } },
                body: { name: text(data, 'name'), conf: String(data.get('conf') ?? '') },
              }),
            );
            await queryClient.invalidateQueries({ queryKey: ['org-configs', orgId] });
          }}
        >
          <label>
            Name{' '}
            <input name="name" required maxLength={64} pattern="[a-zA-Z0-9_\-]+" title="letters, digits, _ and -" />
          </label>
          <label>
            HawkScan configuration (YAML)
            <textarea name="conf" required rows={8} spellCheck={false} className="code" />
          </label>
        </ActionForm>
      </details>
    </>
  );
}

/** Asks for a short-lived presigned URL of an asset, and hands it over as a download link. */
function DownloadLink({
  name,
  get,
  onLink,
}: {
  name: string;
  get: () => Promise<{ presignedDownloadUrl?: string }>;
  onLink: (link: { label: string; href: string }) => void;
}) {
  return (
    <button
      type="button"
      onClick={async () => {
        const asset = await get();
        onLink({ label: `Download ${name} (link valid for a few minutes)`, href: asset.presignedDownloadUrl! });
      }}
    >
      Get download link<span className="visually-hidden"> for {name}</span>
    </button>
  );
}
