// The scanner client's command line: `hawk-scanner <command> ...` (from the repository root: `npm run scanner --`).
import { VALIDATE_USAGE, validateCommand } from './commands/validate.ts';
import { IMPORT_USAGE, importCommand } from './commands/import.ts';
import { SARIF_USAGE, sarifCommand } from './commands/sarif.ts';
import { AGENT_USAGE, agentCommand } from './commands/agent.ts';
import { PROFILE_USAGE, profileCommand } from './commands/profile.ts';
import { HOSTED_USAGE, hostedCommand } from './commands/hosted.ts';

const COMMANDS: Record<string, { usage: string; run: (args: string[]) => Promise<number | 'usage'> }> = {
  validate: { usage: VALIDATE_USAGE, run: validateCommand },
  import: { usage: IMPORT_USAGE, run: importCommand },
  sarif: { usage: SARIF_USAGE, run: sarifCommand },
  agent: { usage: AGENT_USAGE, run: agentCommand },
  profile: { usage: PROFILE_USAGE, run: profileCommand },
  hosted: { usage: HOSTED_USAGE, run: hostedCommand },
};

export const USAGE = `usage: hawk-scanner <command> ...  (from the repository root: npm run --silent scanner -- <command> ...)
${Object.values(COMMANDS)
  .map((command) => `  ${command.usage.replace(/\n/g, '\n  ')}`)
  .join('\n\n')}`;

/** Runs one command line; answers the process exit code (2: bad usage, after printing the usage). */
export async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === '--help' || name === '-h' || name === 'help') {
    console.log(USAGE);
    return 0;
  }
  const command = COMMANDS[name ?? ''];
  // Before the command's own parsing, which would take --help for a flag's value or refuse it as unknown.
  if (command && rest.some((arg) => arg === '--help' || arg === '-h')) {
    console.log(`usage: hawk-scanner ${command.usage}`);
    return 0;
  }
  const code = command ? await command.run(rest) : 'usage';
  if (code !== 'usage') return code;
  console.error(command ? `usage: hawk-scanner ${command.usage}` : USAGE);
  return 2;
}
