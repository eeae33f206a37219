import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import Provider from 'oidc-provider';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

// OpenID Connect providers for the single sign-on tests, on loopback: panva's oidc-provider (a certified
// implementation, with its development login and consent pages), and a forger that answers discovery, JWKS and the
// token endpoint with ID tokens the test shapes (wrong issuer, audience, nonce, expiry), signed with its own key.

export interface Account {
  email: string;
  name?: string;
  groups?: string[];
  emailVerified?: boolean;
}

export interface RunningProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** oidc-provider with one confidential client; the development login takes any password, the login names the account. */
export async function startOidcProvider(
  redirectUri: string,
  accounts: Record<string, Account>,
): Promise<RunningProvider> {
  const server = createServer();
  const issuer = await listen(server);
  const clientId = `hawk-${randomUUID()}`;
  const clientSecret = `secret-${randomUUID()}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    // The scopes' claims go in the ID token itself, as Okta, Entra and Keycloak can be set to do for groups.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      const account = accounts[id];
      if (!account) return undefined;
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: account.email,
          email_verified: account.emailVerified ?? true,
          name: account.name ?? id,
          groups: account.groups ?? [],
        }),
      };
    },
  });
  server.on('request', provider.callback());
  return { issuer, clientId, clientSecret, close: () => closeServer(server) };
}

/** A cookie jar just big enough for the provider's interaction cookies. */
class Cookies {
  private jar = new Map<string, string>();
  take(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
  }
  header() {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * Drives the provider's login and consent pages as a browser would (fetch, its cookies, its forms), from the
 * authorization URL to the redirect to the client; answers that redirect's URL.
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const cookies = new Cookies();
  let url = new URL(authorizationUrl);
  let form: { action: string; fields: Record<string, string> } | undefined;
  for (let step = 0; step < 20; step++) {
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: cookies.header(),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form.fields) : undefined,
    });
    cookies.take(response);
    form = undefined;
    const location = response.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.origin !== url.origin) return next; // back to the client: the redirect URI
      url = next;
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`the provider answered ${response.status}: ${html.slice(0, 500)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`no form on the provider's page: ${html.slice(0, 500)}`);
    url = new URL(action.replace(/&amp;/g, '&'), url);
    form = { action, fields: prompt === 'login' ? { prompt, login, password: 'any' } : { prompt } };
  }
  throw new Error('the provider did not redirect back within 20 steps');
}

export interface ForgedClaims {
  iss?: string;
  aud?: string;
  nonce?: string;
  exp?: number;
  iat?: number;
  sub?: string;
  email?: string;
  groups?: string[];
}

/**
 * A provider that issues whatever ID token the test asks for: discovery, JWKS and a token endpoint (any code is
 * accepted; the ID token comes from `forge`, given the nonce the service sent in the authorization URL). It counts
 * the discovery documents it served, and `publish` changes fields of that document.
 */
export async function startForgingProvider(): Promise<
  RunningProvider & {
    forge(build: (defaults: Required<ForgedClaims>) => ForgedClaims): void;
    nonceFrom(url: string): void;
    publish(fields: Record<string, string>): void;
    discoveries(): number;
  }
> {
  const server = createServer();
  const issuer = await listen(server);
  const clientId = `forged-${randomUUID()}`;
  const clientSecret = `secret-${randomUUID()}`;
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'forger', alg: 'RS256', use: 'sig' };
  let nonce = '';
  let published: Record<string, string> = {};
  let discoveries = 0;
  let build: (defaults: Required<ForgedClaims>) => ForgedClaims = (d) => d;
  server.on('request', async (request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const path = new URL(request.url!, issuer).pathname;
    if (path === '/.well-known/openid-configuration') {
      discoveries++;
      return send(200, {
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        ...published,
      });
    }
    if (path === '/jwks') return send(200, { keys: [jwk] });
    if (path === '/token') {
      for await (const _chunk of request);
      const now = Math.floor(Date.now() / 1000);
      const claims = build({
        iss: issuer,
        aud: clientId,
        nonce,
        iat: now,
        exp: now + 300,
        sub: 'forged-user',
        email: 'forged@forged.test',
        groups: [],
      });
      const idToken = await new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'forger' })
        .sign(privateKey);
      return send(200, { access_token: 'forged-access', token_type: 'Bearer', expires_in: 300, id_token: idToken });
    }
    send(404, { error: 'not_found' });
  });
  return {
    issuer,
    clientId,
    clientSecret,
    forge(next) {
      build = next;
    },
    nonceFrom(url) {
      nonce = new URL(url).searchParams.get('nonce') ?? '';
    },
    publish(fields) {
      published = fields;
    },
    discoveries: () => discoveries,
    close: () => closeServer(server),
  };
}
