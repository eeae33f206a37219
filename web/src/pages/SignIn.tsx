import { useEffect, useState, type FormEvent } from 'react';
import { api, describeError, unwrap } from '../api/client';
import { startSession } from '../session';
import { useTitle } from '../components/ui';

// The API key goes to the service once, in the X-ApiKey header of the login request, and nowhere else: it is
// not kept in state after submit, in storage or in the URL.
//
// Single sign-on (docs/IDENTITY.md "Single sign-on"): the start answers the provider's URL and a binding, which this
// tab keeps in its session storage until the provider sends the browser back to /sso/callback; that page posts the
// provider's query and the binding once, and the answer is the same session as an API key's.
const SSO_BINDING_KEY = 'hawk.sso-binding';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function SignIn({ notice }: { notice: string | null }) {
  if (location.pathname === '/sso/callback') return <SsoCallback />;
  return <SignInForms notice={notice} />;
}

/** One callback per page load: StrictMode's second effect (and a reload) must not post the used code again. */
let callbackPosted = false;

function SsoCallback() {
  useTitle('Signing in');
  const [error, setError] = useState<unknown>(null);
  const [linkTicket, setLinkTicket] = useState('');
  useEffect(() => {
    if (callbackPosted) return;
    callbackPosted = true;
    const binding = sessionStorage.getItem(SSO_BINDING_KEY) ?? '';
    sessionStorage.removeItem(SSO_BINDING_KEY);
    const query = location.search;
    // The code leaves the address bar and the history before anything else happens.
    history.replaceState(null, '', '/sso/callback');
    unwrap(api.POST('/api/v1/auth/sso/callback', { body: { query, binding } }))
      .then(({ token, linkTicket }) => {
        // The address belongs to an existing account: no session until that account confirms (docs/IDENTITY.md).
        if (linkTicket) return setLinkTicket(linkTicket);
        history.replaceState(null, '', '/');
        startSession(token!);
      })
      .catch(setError);
  }, []);
  return (
    <main id="main" className="narrow signin">
      <h1>Signing in…</h1>
      {linkTicket && (
        <>
          <p role="alert">
            An account with this e-mail address already exists. Single sign-on signs it in only once that account
            confirms the link: within ten minutes, sign in with that account&apos;s own API key and send this ticket to{' '}
            <code>POST /api/v1/auth/sso/link</code>, then sign in with single sign-on again.
          </p>
          <p>
            <code data-testid="sso-link-ticket">{linkTicket}</code>
          </p>
          <p>
            <a href="/">Back to sign-in</a>
          </p>
        </>
      )}
      {error !== null && (
        <>
          <p role="alert" className="error">
            {describeError(error)}
          </p>
          <p>
            <a href="/">Back to sign-in</a>
          </p>
        </>
      )}
    </main>
  );
}

function SsoSignIn() {
  const presetOrg = new URLSearchParams(location.search).get('org') ?? '';
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const organizationId = UUID.test(presetOrg)
      ? presetOrg
      : String(new FormData(event.currentTarget).get('organizationId') ?? '').trim();
    setBusy(true);
    setError(null);
    try {
      const { authorizationUrl, binding } = await unwrap(
        api.POST('/api/v1/auth/sso/start', { body: { organizationId } }),
      );
      sessionStorage.setItem(SSO_BINDING_KEY, binding!);
      location.assign(authorizationUrl!);
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="sso-title">
      <h2 id="sso-title">Single sign-on</h2>
      {!UUID.test(presetOrg) && (
        <label>
          Organization ID
          <input name="organizationId" required pattern={UUID.source.slice(1, -1)} spellCheck={false} />
        </label>
      )}
      <p className="help">Your organization's administrator gives you its sign-in link or ID.</p>
      <button type="submit" disabled={busy}>
        {busy ? 'Redirecting…' : 'Continue with single sign-on'}
      </button>
      {error !== null && (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      )}
    </form>
  );
}

function SignInForms({ notice }: { notice: string | null }) {
  useTitle('Sign in');
  const [invitation] = useState(takeInvitationToken);
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
      {invitation && <AcceptInvitation token={invitation} />}
      <h1>Sign in to hawk-api</h1>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {new URLSearchParams(location.search).has('org') && <SsoSignIn />}
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
      {!new URLSearchParams(location.search).has('org') && <SsoSignIn />}
    </main>
  );
}

/**
 * An invitation link carries its token in the URL fragment (`#invitation=...`), which no server receives. It is
 * read once and removed from the address bar and history.
 */
function takeInvitationToken(): string | null {
  const match = window.location.hash.match(/^#invitation=([0-9a-f-]{36}\.[A-Za-z0-9_-]{43})$/);
  if (!match) return null;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return match[1]!;
}

/** Accepting an invitation (docs/IDENTITY.md "Invitations"): a new user's first API key is shown here, once. */
function AcceptInvitation({ token }: { token: string }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [accepted, setAccepted] = useState<{ apiKey: string } | null>(null);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const fullName = String(new FormData(event.currentTarget).get('fullName') ?? '').trim();
    setBusy(true);
    setError(null);
    try {
      const answer = await unwrap(
        api.POST('/api/v1/invitations/accept', { body: { token, ...(fullName ? { fullName } : {}) } as never }),
      );
      setAccepted({ apiKey: answer.apiKey ?? '' });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  if (accepted)
    return (
      <section className="notice" role="status">
        <h2>Invitation accepted</h2>
        {accepted.apiKey ? (
          <>
            <p>Your API key. Copy it now: it will not be shown again. Then sign in with it below.</p>
            <p>
              <code data-testid="first-api-key">{accepted.apiKey}</code>
            </p>
          </>
        ) : (
          <p>You are now a member of the organization: sign in below with your API key.</p>
        )}
      </section>
    );
  return (
    <section>
      <h1>Accept your invitation</h1>
      <form onSubmit={submit}>
        <label>
          Your name (optional) <input name="fullName" maxLength={100} autoComplete="name" />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Accepting…' : 'Accept invitation'}
        </button>
        {error !== null && (
          <p role="alert" className="error">
            {describeError(error)}
          </p>
        )}
      </form>
    </section>
  );
}
