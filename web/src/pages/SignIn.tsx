import { useState, type FormEvent } from 'react';
import { api, describeError, unwrap } from '../api/client';
import { startSession } from '../session';
import { useTitle } from '../components/ui';

// The API key goes to the service once, in the X-ApiKey header of the login request, and nowhere else: it is
// not kept in state after submit, in storage or in the URL.
export function SignIn({ notice }: { notice: string | null }) {
  useTitle('Sign in');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const apiKey = String(new FormData(form).get('apiKey') ?? '').trim();
    form.reset();
    setBusy(true);
    setError(null);
    try {
      const { token } = await unwrap(api.GET('/api/v1/auth/login', { params: { header: { 'X-ApiKey': apiKey } } }));
      startSession(token!);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" className="narrow signin">
      <h1>Sign in to hawk-api</h1>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit}>
        <label>
          API key
          <input
            name="apiKey"
            type="password"
            required
            autoComplete="off"
            spellCheck={false}
            aria-describedby="key-help"
          />
        </label>
        <p id="key-help" className="help">
          Paste an API key (<code>hawk.…</code>). The first <code>npm start</code> prints one; an operator makes more
          with <code>npm run admin -- create-api-key</code>. The key is exchanged for a 30-minute session and is not
          stored.
        </p>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error !== null && (
          <p role="alert" className="error">
            {error instanceof Error && 'status' in error && error.status === 401
              ? 'That API key was not accepted: check it was pasted whole, or ask for a new one.'
              : describeError(error)}
          </p>
        )}
      </form>
    </main>
  );
}
