import { CfnOutput, Duration, Fn, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { CONTENT_SECURITY_POLICY, HSTS_MAX_AGE_SECONDS } from '../web/security-headers.ts';

// The dashboard on AWS: web/dist in a private bucket, read by CloudFront through origin access control, and
// /api/* on the same CloudFront origin forwarded to the HTTP API (so the browser needs no CORS). A stack of its
// own so that the API stack's functions and IAM stay exactly the route table's.
export interface WebStackProps extends StackProps {
  api: IHttpApi;
  /** The built dashboard (web/dist): `ensureWebBuild()` makes it before synth, offline. */
  webDist: string;
}

/** Every path outside /assets/ is one of the single-page app's routes: CloudFront answers it with index.html. */
const SPA_REWRITE = `function handler(event) {
  var request = event.request;
  if (request.uri.indexOf('/assets/') !== 0) request.uri = '/index.html';
  return request;
}`;

export class HawkWebStack extends Stack {
  constructor(scope: Construct, id: string, props: WebStackProps) {
    super(scope, id, props);

    const bucket = new Bucket(this, 'WebBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const securityHeaders = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'hawk-api dashboard: CSP, HSTS, no framing',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: CONTENT_SECURITY_POLICY, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.seconds(HSTS_MAX_AGE_SECONDS),
          includeSubdomains: true,
          override: true,
        },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });

    // https://{apiId}.execute-api.{region}.amazonaws.com -> its host name.
    const apiHost = Fn.select(2, Fn.split('/', props.api.apiEndpoint));
    const distribution = new Distribution(this, 'Distribution', {
      comment: 'hawk-api: dashboard and API on one origin',
      httpVersion: HttpVersion.HTTP2_AND_3,
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: securityHeaders,
        functionAssociations: [
          {
            eventType: FunctionEventType.VIEWER_REQUEST,
            function: new CloudFrontFunction(this, 'SpaRewrite', { code: FunctionCode.fromInline(SPA_REWRITE) }),
          },
        ],
      },
      additionalBehaviors: {
        // Never cached; every viewer header but Host (API Gateway answers only to its own host name) reaches the
        // API, Authorization and X-ApiKey included (allowed with caching disabled).
        '/api/*': {
          origin: new HttpOrigin(apiHost),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
      },
    });

    new BucketDeployment(this, 'WebFiles', {
      sources: [Source.asset(props.webDist)],
      destinationBucket: bucket,
      distribution,
      distributionPaths: ['/index.html'],
    });

    new CfnOutput(this, 'DashboardUrl', { value: `https://${distribution.distributionDomainName}` });
  }
}
