import type { ReactNode } from 'react';
import { CopyButton } from './ui';

/**
 * A secret the service answers once (an API key, an invitation link, a webhook's signing secret): what it is, the
 * value with a copy button, and Done, after which nothing keeps it. A status region, so screen readers announce it.
 */
export function SecretPanel({
  children,
  value,
  testId,
  copyLabel,
  onDone,
}: {
  /** What the secret is and what to do with it; the panel adds that it will not be shown again. */
  children: ReactNode;
  value: string;
  testId: string;
  copyLabel: string;
  onDone?: () => void;
}) {
  return (
    <div role="status" className="notice">
      <p>{children}</p>
      <p>
        <code data-testid={testId}>{value}</code> <CopyButton value={value} label={copyLabel} />
      </p>
      {onDone && (
        <button type="button" onClick={onDone}>
          Done
        </button>
      )}
    </div>
  );
}
