import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { api, describeError, unwrap, type Schemas } from '../api/client';

export type Imported = Schemas['hawk.ScanImported'];

/** The import operation's bound (shared/scans/limits): larger reports go through the CLI. */
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * Imports a scanner's report (ZAP, Wapiti, Nuclei, Burp Suite, SARIF; the tool recognised from its content)
 * as a completed scan of one environment: POST /api/v1/app/{appId}/scan/import?env=<name> (write:scan) with the report as the body.
 */
export function ImportReport({
  appId,
  env,
  onImported,
}: {
  appId: string;
  env: string;
  onImported: (result: Imported) => void;
}) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const file = (new FormData(form).get('report') as File | null) ?? null;
    setError(null);
    if (!file || file.size === 0) return setError('Choose a report file first.');
    if (file.size > MAX_BYTES)
      return setError(
        `${file.name} is ${(file.size / 1048576).toFixed(1)} MiB; the dashboard imports up to 4 MiB. Import larger reports with the CLI: npm run scanner -- import --app ${appId} --env ${env} ${file.name}`,
      );
    setBusy(true);
    try {
      const text = await file.text();
      const type = /^\s*</.test(text) ? 'application/xml' : 'text/plain';
      const imported = await unwrap(
        api.POST('/api/v1/app/{appId}/scan/import', {
          params: { path: { appId }, query: { env } },
          body: text,
          bodySerializer: (body) => body,
          headers: { 'Content-Type': type },
        }),
      );
      form.reset();
      onImported(imported); // before the refetch, which may replace this form (the first scan)
      await queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'user' });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="stack-form import" onSubmit={submit}>
      <label>
        Scanner report (ZAP, Wapiti, Nuclei, Burp Suite, SARIF; up to 4 MiB)
        <input type="file" name="report" accept=".xml,.json,.jsonl,.sarif,application/xml,application/json,text/xml" />
      </label>
      <div>
        <button type="submit" disabled={busy}>
          {busy ? 'Importing…' : `Import into ${env}`}
        </button>
      </div>
      {error !== null && (
        <p role="alert" className="error wrap">
          {describeError(error)}
        </p>
      )}
    </form>
  );
}

/** What an import brought in (and skipped), with a link to the new scan. */
export function ImportSummary({ orgId, result }: { orgId: string; result: Imported }) {
  return (
    <p className="ok">
      Imported a {result.toolName} {result.toolVersion} {result.format} report from {result.host}:{' '}
      {result.alertsImported} alerts, {result.urisImported} findings
      {result.skipped!.length > 0 && (
        <>
          {' '}
          ({result.skipped!.length} items skipped:{' '}
          {result
            .skipped!.slice(0, 3)
            .map((s) => `${s.where}: ${s.reason}`)
            .join('; ')}
          {result.skipped!.length > 3 ? '; …' : ''})
        </>
      )}
      . <Link to={`/org/${orgId}/scan/${result.scanId}`}>Open the scan</Link>
    </p>
  );
}
