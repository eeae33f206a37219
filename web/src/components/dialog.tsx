import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import * as Dialog from '@radix-ui/react-dialog';
import { describeError } from '../api/client';

// Its own module rather than ui.tsx, which the first page loads: only the pages with a dialog load Radix's.

/**
 * A modal dialog holding one form (Radix Dialog: focus moved in, trapped and given back, Escape closes it, the rest
 * of the page hidden from screen readers, role "dialog" named by its title). Radix's Overlay is not used: its scroll
 * lock adds a <style> element, which the Content-Security-Policy (`style-src 'self'`) refuses; the backdrop is a
 * plain element of ours, styled by styles.css. Closed, it gives the focus back to what had it when it opened (Radix
 * would give it to a Dialog.Trigger, and these open from a button or a form's submit).
 */
export function Modal({
  open,
  onOpenChange,
  title,
  onSubmit,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  children: ReactNode;
}) {
  const opener = useRef<HTMLElement | null>(null);
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <div className="dialog-backdrop">
          {/* No Dialog.Description: the body varies, and its words follow the title anyway. */}
          <Dialog.Content
            className="dialog"
            aria-describedby={undefined}
            onOpenAutoFocus={() => {
              opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
            }}
            onCloseAutoFocus={(event) => {
              event.preventDefault();
              opener.current?.focus();
            }}
          >
            <form onSubmit={onSubmit}>
              <Dialog.Title>{title}</Dialog.Title>
              {children}
            </form>
          </Dialog.Content>
        </div>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** A dialog's buttons: Cancel (closes it), then the form's submit. */
export function ModalActions({ children }: { children: ReactNode }) {
  return (
    <div className="actions">
      <Dialog.Close asChild>
        <button type="button">Cancel</button>
      </Dialog.Close>
      {children}
    </div>
  );
}

/**
 * A permanent action behind a modal dialog. With `typeToConfirm` the user types the name of what goes away before
 * the button enables.
 */
export function ConfirmButton({
  label,
  title,
  children,
  typeToConfirm,
  onConfirm,
}: {
  label: string;
  title: string;
  children: ReactNode;
  typeToConfirm?: string;
  onConfirm: () => Promise<unknown>;
}) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        className="danger"
        aria-haspopup="dialog"
        onClick={() => {
          setTyped('');
          setError(null);
          setOpen(true);
        }}
      >
        {label}
      </button>
      <Modal open={open} onOpenChange={setOpen} title={title} onSubmit={submit}>
        {children}
        {typeToConfirm !== undefined && (
          <label>
            Type <code>{typeToConfirm}</code> to confirm
            <input value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
          </label>
        )}
        {error !== null && (
          <p role="alert" className="error">
            {describeError(error)}
          </p>
        )}
        <ModalActions>
          <button
            type="submit"
            className="danger"
            disabled={busy || (typeToConfirm !== undefined && typed !== typeToConfirm)}
          >
            {label}
          </button>
        </ModalActions>
      </Modal>
    </>
  );
}
