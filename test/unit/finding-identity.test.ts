import { describe, expect, it } from 'vitest';
import {
  findingHash,
  issueId,
  issuePath,
  issueRepresentatives,
  normalizedPath,
  pathTemplates,
  weaknessOf,
} from '../../shared/results/model.ts';
import { decodedRoutes, descriptionRoutes, encodedRoutes } from '../../shared/hosted-assets/description-routes.ts';

describe('finding identity', () => {
  it('normalizes paths: origin, query, fragment, empty segments and trailing slash dropped; id-like segments as {id}', () => {
    expect(normalizedPath('https://shop.test:8443/users/42/orders/7?x=1#top')).toBe('/users/{id}/orders/{id}');
    expect(normalizedPath('/users/43/orders/8/')).toBe('/users/{id}/orders/{id}');
    expect(normalizedPath('//users/9b2f0c5e-1d2a-4c3b-8e4f-5a6b7c8d9e0f/orders/1')).toBe('/users/{id}/orders/{id}');
    expect(normalizedPath('/files/5f1d7a3c9e2b4a6d8c0e1f23')).toBe('/files/{id}'); // 24 hex digits: an ObjectId
    expect(normalizedPath('/orders/01HZX3K7Q9M2N4P6R8T0V2W4Y6')).toBe('/orders/{id}'); // a ULID
    expect(normalizedPath('/prices/-3.50')).toBe('/prices/{id}');
    expect(normalizedPath('/a%20b/%7Bx%7D')).toBe('/a b/{id}');
    expect(normalizedPath('/api/v1/users/{userId}')).toBe('/api/v1/users/{id}'); // a parameterized path matches its literal URIs
    expect(normalizedPath('/bad%zzescape')).toBe('/bad%zzescape');
    expect(normalizedPath('https://shop.test')).toBe('/');
    expect(normalizedPath('/')).toBe('/');
  });

  it('keeps words, versions, short hex-like words and case', () => {
    expect(normalizedPath('/api/v1/Users/deadbeef')).toBe('/api/v1/Users/deadbeef');
    expect(normalizedPath('/api/v2/cafe/ab12')).toBe('/api/v2/cafe/ab12');
    expect(normalizedPath('/blog/a-very-long-article-title-without-digits')).toBe(
      '/blog/a-very-long-article-title-without-digits',
    );
    expect(normalizedPath('/Login')).not.toBe(normalizedPath('/login'));
  });

  it('hashes application, environment, plugin, method (any case), normalized path and parameter', () => {
    const base = {
      applicationId: 'a',
      environmentId: 'e',
      pluginId: '40012',
      method: 'get',
      uri: '/users/1?q=x',
      param: 'q',
    };
    const hash = findingHash(base);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(findingHash({ ...base, method: 'GET', uri: 'https://other.host/users/2' })).toBe(hash);
    for (const change of [
      { applicationId: 'b' },
      { environmentId: 'f' },
      { pluginId: '40013' },
      { method: 'POST' },
      { uri: '/accounts/1' },
      { param: 'r' },
    ]) {
      expect(findingHash({ ...base, ...change })).not.toBe(hash);
    }
    // Fields cannot run into each other.
    expect(findingHash({ ...base, pluginId: '4', param: '0012' })).not.toBe(
      findingHash({ ...base, pluginId: '40', param: '012' }),
    );
  });
});

describe('issueId (docs/ISSUES.md)', () => {
  const base = {
    applicationId: 'app',
    environmentId: 'env',
    cweId: '79',
    pluginId: '40012',
    method: 'GET',
    uri: 'https://shop.test/search?q=x',
    param: 'q',
  };

  it('is one id for every tool reporting the same CWE at the same method, normalized path and parameter', () => {
    const zap = issueId(base);
    expect(zap).toMatch(/^[0-9a-f]{64}$/);
    expect(issueId({ ...base, pluginId: 'wapiti.cross-site-scripting', cweId: '', uri: '/search?q=<script>' })).toBe(
      zap,
    );
    expect(
      issueId({ ...base, pluginId: 'nuclei.xss', cweId: 'CWE-79', method: 'get', uri: 'http://other/search/' }),
    ).toBe(zap);
    expect(issueId({ ...base, param: 'p' })).not.toBe(zap);
    expect(issueId({ ...base, method: 'POST' })).not.toBe(zap);
    expect(issueId({ ...base, cweId: '89' })).not.toBe(zap);
    expect(issueId({ ...base, environmentId: 'env2' })).not.toBe(zap);
    expect(issueId({ ...base, uri: '/search/more' })).not.toBe(zap);
  });

  it('falls back to the rule id as the category when no CWE is known', () => {
    expect(weaknessOf('', '10038')).toBe('category:10038');
    expect(weaknessOf('0', '10038')).toBe('category:10038');
    expect(weaknessOf('-1', 'nuclei.tech-detect')).toBe('category:nuclei.tech-detect');
    expect(weaknessOf('', 'wapiti.http-secure-headers.medium')).toBe('cwe:693');
    expect(weaknessOf('', 'wapiti.internal-server-error')).toBe('category:wapiti.internal-server-error');
    expect(weaknessOf('', 'wapiti.constructor')).toBe('category:wapiti.constructor');
  });

  it("templates a path by an API description's parameterized paths", () => {
    const templates = pathTemplates(['/users/{userId}', '/users/me', '/users/{userId}/orders/{orderId}', '/health']);
    expect(issuePath('https://shop.test/users/alice', templates)).toBe('/users/{id}');
    expect(issuePath('/users/123', templates)).toBe('/users/{id}');
    expect(issuePath('/users/alice/orders/x1', templates)).toBe('/users/{id}/orders/{id}');
    expect(issuePath('/accounts/alice', templates)).toBe('/accounts/alice');
    expect(issuePath('/users/alice')).toBe('/users/alice');
  });

  it('matches concrete paths first, partial segments, literal id-like segments and server base paths', () => {
    const templates = pathTemplates(
      ['/users/{userId}', '/users/me', '/files/{name}.{ext}', '/reports/2024/{section}', '/', '/{tenant}/settings'],
      ['/api/v1', '/api'],
    );
    expect(issuePath('/users/me', templates)).toBe('/users/me');
    expect(issuePath('/users/abc-name', templates)).toBe('/users/{id}');
    expect(issuePath('/files/a.b.json', templates)).toBe('/files/{id}.{id}');
    expect(issuePath('/files/.json', templates)).toBe('/files/.json'); // a parameter is never empty
    expect(issuePath('/files/readme', templates)).toBe('/files/readme');
    expect(issuePath('/reports/2024/summary', templates)).toBe('/reports/2024/{id}');
    expect(issuePath('/reports/2025/summary', templates)).toBe('/reports/{id}/summary');
    expect(issuePath('https://shop.test/api/v1/users/alice?x=1', templates)).toBe('/api/v1/users/{id}');
    expect(issuePath('/api/users/alice', templates)).toBe('/api/users/{id}');
    expect(issuePath('/api/v1', templates)).toBe('/api/v1');
    expect(issuePath('/users/settings', templates)).toBe('/users/{id}');
    expect(issuePath('/acme/settings', templates)).toBe('/{id}/settings');
    expect(issuePath('/users/a/b', templates)).toBe('/users/a/b');
  });

  it('normalizes long hostile paths (no backtracking on the input)', () => {
    const long = `/${'a1-'.repeat(20_000)}!/${'{'.repeat(20_000)}/${'9'.repeat(20_000)}x`;
    expect(issuePath(`https://x.test${long}`, pathTemplates(['/{a}/{b}/{c}']))).toBe('/{id}/{id}/{id}');
    expect(normalizedPath(`${'a'.repeat(50_000)}:`)).toBe(`/${'a'.repeat(50_000)}:`);
    const deep = '/x'.repeat(50_000);
    expect(issuePath(deep, pathTemplates([deep, `${'/{p}'.repeat(50_000)}/y`, `/${'{a}.'.repeat(5_000)}z`]))).toBe(
      deep,
    );
    expect(issuePath(`/${'a.'.repeat(20_000)}`, pathTemplates([`/${'{a}.'.repeat(5_000)}z`]))).toBe(
      `/${'a.'.repeat(20_000)}`,
    );
  });
});

describe("a hosted description's routes", () => {
  it('keeps its paths in order and its servers’ paths, variables at their defaults', () => {
    const routes = descriptionRoutes({
      paths: { '/users/{id}': {}, '/users/me': {}, 'x-not-a-path': {} },
      servers: [
        { url: 'https://{region}.shop.test/{base}/v1?x=1', variables: { base: { default: 'api' } } },
        { url: '/' },
        { url: 'relative/{missing}' },
        'not a server',
      ],
    });
    expect(routes).toEqual({ paths: ['/users/{id}', '/users/me'], basePaths: ['/api/v1', 'relative/{missing}'] });
    expect(decodedRoutes(encodedRoutes(routes))).toEqual(routes);
    expect(descriptionRoutes(null)).toEqual({ paths: [], basePaths: [] });
  });
});

describe('issue representatives', () => {
  it('keeps the first finding of each issue in the order given, per scope', () => {
    const f = (findingHash: string, issueId: string, due: number, env = 'e1') => ({ findingHash, issueId, due, env });
    const order = (a: { due: number; findingHash: string }, b: { due: number; findingHash: string }) =>
      a.due - b.due || a.findingHash.localeCompare(b.findingHash);
    const found = [f('zap', 'i1', 5), f('wapiti', 'i1', 3), f('other', 'i2', 4), f('zap2', 'i1', 1, 'e2')];
    expect(issueRepresentatives(found, order, (x) => x.env).map((x) => x.findingHash)).toEqual([
      'zap2',
      'wapiti',
      'other',
    ]);
    expect(issueRepresentatives(found, order).map((x) => x.findingHash)).toEqual(['zap2', 'other']);
  });
});
