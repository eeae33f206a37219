// Wapiti's attack modules a hosted scan runs, and the scan-policy plugins (ZAP's scan-rule ids, the public
// scan-policy operations' `pluginId`) each stands for (docs/SCAN-POLICIES.md, Hosted scans and wapiti's modules).
// A module runs only when every plugin it stands for is enabled in the application's policy.

export interface WapitiModule {
  name: string;
  /** The scan-policy plugin ids the module stands for. */
  pluginIds: readonly string[];
  /** The report's categories (vulnerabilities) the module reports under, in lower case. */
  categories: readonly string[];
}

/** Every module of wapiti 3.0.x that needs no internet, in the order wapiti runs them. */
export const WAPITI_ATTACK_MODULES: readonly WapitiModule[] = [
  { name: 'crlf', pluginIds: ['40003'], categories: ['crlf injection'] },
  { name: 'csp', pluginIds: ['10038'], categories: ['content security policy configuration'] },
  { name: 'http_headers', pluginIds: ['10020', '10021', '10035'], categories: ['http secure headers'] },
  { name: 'csrf', pluginIds: ['20012', '10202'], categories: ['cross site request forgery'] },
  { name: 'cookieflags', pluginIds: ['10010', '10011'], categories: ['httponly flag cookie', 'secure flag cookie'] },
  { name: 'exec', pluginIds: ['90020', '90019'], categories: ['command execution'] },
  { name: 'file', pluginIds: ['6', '7'], categories: ['path traversal'] },
  { name: 'sql', pluginIds: ['40018'], categories: ['sql injection'] },
  { name: 'xss', pluginIds: ['40012'], categories: ['cross site scripting'] },
  { name: 'backup', pluginIds: ['10095'], categories: ['backup file'] },
  { name: 'htaccess', pluginIds: ['40038'], categories: ['htaccess bypass'] },
  { name: 'shellshock', pluginIds: ['10048'], categories: ['command execution'] },
  { name: 'redirect', pluginIds: ['20019'], categories: ['open redirect'] },
  {
    name: 'blindsql',
    pluginIds: ['40018', '40019', '40020', '40021', '40022', '40024', '40027'],
    categories: ['blind sql injection'],
  },
  { name: 'permanentxss', pluginIds: ['40014'], categories: ['cross site scripting'] },
  { name: 'methods', pluginIds: ['90028'], categories: [] },
];

/** Modules that call out to the internet: never run by a hosted scan, whatever is asked. */
export const INTERNET_MODULES = ['ssrf', 'xxe', 'wapp', 'nikto', 'takeover'] as const;

/** The modules a policy that disables `excludedPluginIds` lets run, in wapiti's order. */
export function modulesForPolicy(excludedPluginIds: readonly string[] = []): string[] {
  const excluded = new Set(excludedPluginIds);
  return WAPITI_ATTACK_MODULES.filter((m) => m.pluginIds.every((id) => !excluded.has(id))).map((m) => m.name);
}

/**
 * The module that reported a finding of the report's `category` with `info`: the two categories two modules share
 * are told apart by the module's own wording (permanentxss: "Permanent XSS ..."; shellshock: "... Shellshock ...").
 */
export function moduleOfFinding(category: string, info: string): string | undefined {
  const name = category.trim().toLowerCase();
  if (name === 'cross site scripting') return /permanent|stored/i.test(info) ? 'permanentxss' : 'xss';
  if (name === 'command execution') return /shellshock/i.test(info) ? 'shellshock' : 'exec';
  return WAPITI_ATTACK_MODULES.find((m) => m.categories.includes(name))?.name;
}

/**
 * The modules that check for a finding of `pluginId` (a retest's, docs/HOSTED-SCANS.md, Retests): a wapiti
 * finding's `wapiti.<category>` names the modules reporting that category; a scan-policy id, those standing for it.
 */
export function modulesOfPlugin(pluginId: string): string[] {
  const category = pluginId.startsWith('wapiti.') ? pluginId.slice('wapiti.'.length).replace(/-/g, ' ') : undefined;
  return WAPITI_ATTACK_MODULES.filter((m) =>
    category === undefined ? m.pluginIds.includes(pluginId) : m.categories.includes(category),
  ).map((m) => m.name);
}

/** The module names `wapiti --list-modules` prints (indented names, some marked "used by default"). */
export function listedModules(output: string): Set<string> {
  return new Set([...output.matchAll(/^\s+([a-z_]+)(?: \(used by default\))?\s*$/gm)].map((match) => match[1]));
}
