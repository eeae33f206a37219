import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, describeError, unwrap } from '../api/client';
import { QueryView } from '../components/states';

/** Upload an OpenAPI description for an application; validation errors are shown at their line in the text. */
export function OasUpload({ appId }: { appId: string }) {
  const queryClient = useQueryClient();
  const mapping = useQuery({
    queryKey: ['oas-mapping', appId],
    queryFn: () => unwrap(api.GET('/api/v1/oas/{appId}/mapping', { params: { path: { appId } } })),
  });
  const [source, setSource] = useState('');
  const [result, setResult] = useState<{ ok: string } | { error: unknown } | null>(null);
  const [busy, setBusy] = useState(false);

  const upload = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setResult(null);
    try {
      const uploaded = await unwrap(
        api.POST('/api/v1/oas/{appId}/upload', {
          params: { path: { appId } },
          body: source,
          bodySerializer: (body: string) => body,
          headers: { 'Content-Type': 'text/plain' },
        }),
      );
      setResult({
        ok: `Uploaded OpenAPI ${uploaded.openapiVersion} description ${uploaded.oasId} (${uploaded.fileSize} bytes).`,
      });
      await queryClient.invalidateQueries({ queryKey: ['oas-mapping', appId] });
      await queryClient.invalidateQueries({ queryKey: ['oas-list'] });
    } catch (error) {
      setResult({ error });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <QueryView query={mapping} what="the mapped API descriptions">
        {(data) =>
          data.assets!.length === 0 ? (
            <p>No API description is mapped to this application yet.</p>
          ) : (
            <ul className="rows" aria-label="Mapped API descriptions">
              {data.assets!.map((a) => (
                <li key={a.oasId}>
                  <code>{a.oasId}</code>
                  {/* The application's own upload is always included; only repository-sourced ones can be unmapped. */}
                  {a.repositoryId ? (
                    <button
                      type="button"
                      onClick={async () => {
                        await unwrap(
                          api.POST('/api/v1/oas/{appId}/mapping', {
                            params: { path: { appId } },
                            body: { appId, oasId: a.oasId!, repositoryId: a.repositoryId!, include: false },
                          }),
                        );
                        await queryClient.invalidateQueries({ queryKey: ['oas-mapping', appId] });
                      }}
                    >
                      Unmap<span className="visually-hidden"> {a.oasId}</span>
                    </button>
                  ) : (
                    <span className="muted">uploaded for this application</span>
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
      <form onSubmit={upload} className="stack-form">
        <label>
          OpenAPI 3.0/3.1 file (YAML or JSON)
          <input
            type="file"
            accept=".yaml,.yml,.json,text/yaml,application/json"
            onChange={async (e) => setSource((await e.target.files?.[0]?.text()) ?? '')}
          />
        </label>
        <label>
          or paste it
          <textarea
            value={source}
            onChange={(e) => setSource(e.target.value)}
            rows={8}
            spellCheck={false}
            className="code"
          />
        </label>
        <button type="submit" disabled={busy || !source.trim()}>
          {busy ? 'Uploading…' : 'Upload description'}
        </button>
      </form>
      {result && 'ok' in result && <p role="status">{result.ok}</p>}
      {result && 'error' in result && <UploadError error={result.error} source={source} />}
    </>
  );
}

/** The service names the line ("... (line 12)"): show that line with two lines of context. */
function UploadError({ error, source }: { error: unknown; source: string }) {
  const message = describeError(error);
  const line = error instanceof ApiError ? Number(/\(line (\d+)/.exec(error.message)?.[1]) : NaN;
  const lines = source.split('\n');
  const first = Math.max(1, line - 2);
  return (
    <div role="alert" className="error">
      <p>The description was not accepted: {message}</p>
      {line > 0 && line <= lines.length && (
        <pre
          className="code excerpt"
          aria-label={`Lines ${first} to ${Math.min(lines.length, line + 2)} of the upload`}
        >
          {lines.slice(first - 1, line + 2).map((content, i) => {
            const number = first + i;
            const row = `${String(number).padStart(4)} | ${content}\n`;
            return number === line ? <mark key={number}>{row}</mark> : <span key={number}>{row}</span>;
          })}
        </pre>
      )}
    </div>
  );
}
