import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { describeError } from '../api/client';

export const SEVERITIES = ['High', 'Medium', 'Low'] as const;
/** With informational alerts (imported ZAP reports keep them): listed and counted, never untriaged. */
export const ALL_SEVERITIES = [...SEVERITIES, 'Info'] as const;

export function SeverityBadge({ severity, count }: { severity: string; count?: number }) {
  return (
    <span className={`badge sev-${severity.toLowerCase()}`}>
      {severity}
      {count !== undefined && <>: {count}</>}
    </span>
  );
}

/**
 * The tool a scan's version field names: an import records "<tool> <version>" ("Wapiti 3.0.4", docs/IMPORTS.md), a
 * hosted scan's agent "hawk-scanner agent (<engine>)", and HawkScan its bare version.
 */
export const scannerName = (version: string | undefined) =>
  !version ? '—' : /^\d/.test(version) ? `HawkScan ${version}` : version;

export function formatTime(epochMillis: string | undefined): string {
  const n = Number(epochMillis);
  return n > 0 ? new Date(n).toLocaleString() : '—';
}

/**
 * Whether a deprecated (V1) list has a page after `page`: from its total, since its `nextPageToken` names a page
 * past the end after the last one (docs/COMPATIBILITY.md "Paging").
 */
export const morePages = (page: number, size: number, totalCount: string | undefined) =>
  (page + 1) * size < Number(totalCount ?? 0);

/** Prev/next paging for token-paged lists; the caller keeps the page in the URL. */
export function Pager({
  page,
  hasNext,
  onPage,
  total,
}: {
  page: number;
  hasNext: boolean;
  onPage: (page: number) => void;
  total?: string;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 0}>
        Previous
      </button>
      <span>
        Page {page + 1}
        {total !== undefined && <> · {total} in all</>}
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={!hasNext}>
        Next
      </button>
    </nav>
  );
}

/** A small form with one submit, its pending state and the service's error message. */
export function ActionForm({
  onSubmit,
  submitLabel,
  children,
  className,
}: {
  onSubmit: (data: FormData) => Promise<unknown>;
  submitLabel: string;
  children: ReactNode;
  className?: string;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    setBusy(true);
    setError(null);
    try {
      await onSubmit(new FormData(form));
      form.reset();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className={className ?? 'inline-form'}>
      {children}
      <button type="submit" disabled={busy}>
        {busy ? 'Working…' : submitLabel}
      </button>
      {error !== null && (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      )}
    </form>
  );
}

/** Sets the document title, so that tabs and history are readable and screen readers announce the page. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · hawk-api`;
  }, [title]);
}

export const text = (data: FormData, name: string) => String(data.get(name) ?? '').trim();

/** Copies `value` to the clipboard, and says whether it could. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState('');
  return (
    <>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(value).then(
            () => setState('Copied.'),
            () => setState('Copying was refused: select the text and copy it.'),
          )
        }
      >
        {label}
      </button>{' '}
      <span role="status">{state}</span>
    </>
  );
}
