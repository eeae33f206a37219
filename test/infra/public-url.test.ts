import { describe, expect, it } from 'vitest';
import { publicUrlEnvironment } from '../../infra/public-url.ts';

// `cdk deploy -c publicUrl=...`: the functions' PUBLIC_URL (docs/DEPLOYMENT.md, Links to the dashboard).
describe('the publicUrl context value', () => {
  it("sets PUBLIC_URL to the dashboard's address, without a trailing slash; nothing when unset", () => {
    expect(publicUrlEnvironment('https://hawk.example.com/')).toEqual({ PUBLIC_URL: 'https://hawk.example.com' });
    expect(publicUrlEnvironment('https://example.com/hawk')).toEqual({ PUBLIC_URL: 'https://example.com/hawk' });
    expect(publicUrlEnvironment(undefined)).toEqual({});
    expect(publicUrlEnvironment('')).toEqual({});
  });

  it('refuses what is not an http(s) address without query', () => {
    for (const value of ['hawk.example.com', 'ftp://hawk.example.com', 'https://x.test/?a=1', 'https://x.test/#f', 42])
      expect(() => publicUrlEnvironment(value), String(value)).toThrow(/context publicUrl must be/);
  });
});
