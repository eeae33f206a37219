import { App } from 'aws-cdk-lib';
import { HawkApiStack } from './stack.ts';

// `npx cdk synth` / `npx cdk deploy`: environment-agnostic (no lookups), so synth works offline without credentials.
const app = new App();
new HawkApiStack(app, process.env.STACK_NAME ?? 'HawkApi');
