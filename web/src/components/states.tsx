import type { ReactNode } from 'react';
import { describeError } from '../api/client';

// Loading, error and empty states, the same everywhere. Live regions so screen readers hear the outcome.
export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="state error" role="alert">
      <p>{describeError(error)}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}

/** Renders the states of a query, then `children(data)` once it has data. */
export function QueryView<T>({
  query,
  what,
  children,
}: {
  query: { data?: T; error: unknown; isPending: boolean; refetch: () => unknown };
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.error || query.data === undefined)
    return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}
