import { App } from 'aws-cdk-lib';
import { HawkApiStack } from './stack.ts';
import { HawkWebStack } from './web.ts';
import { ensureWebBuild, webDist } from '../scripts/local/web.ts';
import { quietBundling } from './quiet.ts';

// `npx cdk synth` / `npx cdk deploy`: environment-agnostic (no lookups), so synth works offline without credentials.
const app = new App();
const apiStack = quietBundling(() => new HawkApiStack(app, process.env.STACK_NAME ?? 'HawkApi'));
// The dashboard: CloudFront serving web/dist (built here, offline, when its sources changed) with /api/* to the API.
await ensureWebBuild({ log: console.error });
new HawkWebStack(app, `${apiStack.stackName}Web`, { api: apiStack.api, webDist });
