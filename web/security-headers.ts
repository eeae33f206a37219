// The security headers of every dashboard response: set by the local server (scripts/local/web.ts) and by
// CloudFront's response headers policy on AWS (infra/web.ts). Same origin only, no inline script, no framing.
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
export const HSTS_MAX_AGE_SECONDS = 63_072_000; // two years

export const WEB_SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'strict-transport-security': `max-age=${HSTS_MAX_AGE_SECONDS}; includeSubDomains`,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;
