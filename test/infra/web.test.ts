import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HawkWebStack } from '../../infra/web.ts';

// The dashboard's CloudFront stack, synthesized offline against a bare HTTP API (the API stack has its own test)
// and a stand-in for web/dist (the e2e tests use the real build).
let template: Template;
const resources = (type: string) =>
  Object.values(template.findResources(type)) as { Properties: Record<string, any> }[];

beforeAll(() => {
  const webDist = mkdtempSync(join(tmpdir(), 'hawk-web-dist-'));
  writeFileSync(join(webDist, 'index.html'), '<!doctype html><title>hawk-api</title>');
  const app = new App();
  const api = new HttpApi(new Stack(app, 'Api'), 'HttpApi');
  template = Template.fromStack(new HawkWebStack(app, 'Web', { api, webDist }));
}, 120_000); // synthesis stages the assets: seconds on a busy machine

describe('dashboard stack', () => {
  it('keeps the files in a private, encrypted bucket that only this distribution reads (origin access control)', () => {
    const [bucket] = resources('AWS::S3::Bucket');
    expect(bucket!.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(resources('AWS::CloudFront::OriginAccessControl')).toHaveLength(1);
    const statements = resources('AWS::S3::BucketPolicy').flatMap((p) => p.Properties.PolicyDocument.Statement);
    const reads = statements.filter(
      (s: any) => s.Effect === 'Allow' && JSON.stringify(s.Action).includes('s3:GetObject'),
    );
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      expect(read.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
      expect(JSON.stringify(read.Condition)).toContain('AWS:SourceArn');
    }
    expect(JSON.stringify(statements)).toContain('aws:SecureTransport');
  });

  it('serves the API under /api/* on the same origin, uncached, with every viewer header but Host', () => {
    const [distribution] = resources('AWS::CloudFront::Distribution');
    const config = distribution!.Properties.DistributionConfig;
    const [api] = config.CacheBehaviors;
    expect(config.CacheBehaviors).toHaveLength(1);
    expect(api.PathPattern).toBe('/api/*');
    expect(api.AllowedMethods).toEqual(
      expect.arrayContaining(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']),
    );
    expect(api.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad'); // Managed-CachingDisabled
    expect(api.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac'); // Managed-AllViewerExceptHostHeader
    expect(api.ViewerProtocolPolicy).toBe('https-only');
    const apiOrigin = config.Origins.find((o: any) => o.Id === api.TargetOriginId);
    expect(apiOrigin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    expect(JSON.stringify(apiOrigin.DomainName)).toContain('ApiEndpoint');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
  });

  it('adds CSP, HSTS and frame-ancestors to the dashboard', () => {
    const [policy] = resources('AWS::CloudFront::ResponseHeadersPolicy');
    const headers = policy!.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(headers.ContentSecurityPolicy.ContentSecurityPolicy).toContain("frame-ancestors 'none'");
    expect(headers.ContentSecurityPolicy.ContentSecurityPolicy).toContain("script-src 'self'");
    expect(headers.StrictTransportSecurity).toMatchObject({
      AccessControlMaxAgeSec: 63072000,
      IncludeSubdomains: true,
      Override: true,
    });
    expect(headers.FrameOptions.FrameOption).toBe('DENY');
  });

  it('answers the single-page app routes with index.html, and only the default behaviour does so', () => {
    const [fn] = resources('AWS::CloudFront::Function');
    const handler = new Function(`${fn!.Properties.FunctionCode}; return handler;`)() as (event: unknown) => {
      uri: string;
    };
    const rewrite = (uri: string) => handler({ request: { uri } }).uri;
    expect(rewrite('/')).toBe('/index.html');
    expect(rewrite('/org/1/scan/2/alert/a.b')).toBe('/index.html');
    expect(rewrite('/assets/index-abc.js')).toBe('/assets/index-abc.js');
    const config = resources('AWS::CloudFront::Distribution')[0]!.Properties.DistributionConfig;
    expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
    expect(config.CacheBehaviors[0].FunctionAssociations).toBeUndefined();
    // No error-page fallback: it would turn the API's own 403/404 JSON answers into index.html.
    expect(config.CustomErrorResponses).toBeUndefined();
  });
});
