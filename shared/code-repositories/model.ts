// The rules of registered source-code repositories apart from their reads and writes (their records are in
// shared/applications/model.ts): how many applications one request may create, and the ages the list filters by.
// Records, types and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and other resources' model.ts,
// never a repository.

/** Applications one createAppsForRepos request may create: with their audit entries they fit one transaction. */
export const MAX_APPS_FOR_REPOS = 20;

export const DAY = 24 * 60 * 60 * 1000;

/** "Recent" scans (REPOS_WITH_RECENT_SCANS): a mapped application scanned in the last 30 days. */
export const RECENT_SCAN_MS = 30 * DAY;
