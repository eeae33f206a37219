// `node --import tsx scripts/bench/hosted-target-process.ts <small|shop>`: one of the hosted bench's sites
// (hosted-targets.ts) in a process of its own, started by startTargetProcess: it tells its address once it listens,
// answers how many requests it served when asked, and ends with its parent.
import { TARGETS, type TargetMessage } from './hosted-targets.ts';

const kind = process.argv[2] as keyof typeof TARGETS;
if (!(kind in TARGETS)) throw new Error(`hosted-target-process: no site named "${kind}"`);
const target = await TARGETS[kind]();
process.on('message', (message: TargetMessage) => {
  if (message.type === 'requests')
    process.send!({ type: 'requests', id: message.id, requests: target.requests() } satisfies TargetMessage);
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => void target.close().then(() => process.exit(0)));
process.send!({ type: 'listening', url: target.url, description: target.description } satisfies TargetMessage);
