import { jiraWikiText, markdownCode, markdownText } from '../input/markup.ts';
import { trackerCall } from './http.ts';
import {
  type TrackerRecord,
  type RemoteIssue,
  type TextPiece,
  type TrackerClient,
  hashLabel,
  TrackerFailure,
} from './model.ts';

// The three trackers' REST APIs, as far as tickets need them (docs/TRACKERS.md, Delivery): find the issue carrying a
// finding's hash, create one, read its state, close it. Jira Cloud speaks REST v3 (descriptions in the Atlassian
// Document Format, search at /rest/api/3/search/jql, e-mail and API token as Basic credentials), Jira Server and Data
// Center REST v2 (plain-text descriptions, /rest/api/2/search, a personal access token as Bearer), GitHub its REST
// API (the hash searched in issue bodies, a token as Bearer). A closed issue is read by its status's category
// (Jira: statusCategory.key "done") or state (GitHub), never by transition or status ids, which differ per site.
// A description's values are written as text in each tracker's markup (shared/input/markup.ts; docs/TRACKERS.md,
// Ticket text): GitHub renders markdown, Jira Server and Data Center wiki markup; Jira Cloud's ADF text is literal.

/** The description in one markup: each value through its escapers, the lines joined by newlines. */
function written(lines: TextPiece[][], value: (text: string) => string, code: (text: string) => string): string {
  const piece = (p: TextPiece) => (typeof p === 'string' ? p : 'code' in p ? code(p.code) : value(p.value));
  return lines.map((line) => line.map(piece).join('')).join('\n');
}
const plain = (text: string) => text;

const NOT_PLANNED = /won'?t (do|fix)|not planned|declined|rejected|duplicate|obsolete/i;
const INVALID = /cannot reproduce|can't reproduce|not a bug|invalid|false positive/i;

function jiraResolution(name: string | undefined): RemoteIssue['resolution'] {
  if (name && INVALID.test(name)) return 'invalid';
  if (name && NOT_PLANNED.test(name)) return 'notPlanned';
  return 'done';
}

/** The parts of a Jira issue the service reads (a search result, GET /issue, the answer to a create). */
interface JiraIssue {
  id?: unknown;
  key?: unknown;
  fields?: { status?: { name?: unknown; statusCategory?: { key?: unknown } }; resolution?: { name?: unknown } | null };
}

/** The parts of a GitHub issue the service reads. */
interface GithubIssue {
  number?: unknown;
  html_url?: unknown;
  state?: unknown;
  state_reason?: unknown;
  body?: unknown;
  pull_request?: unknown;
}

/** A Jira issue (search result or GET) as a RemoteIssue. */
function jiraIssue(tracker: TrackerRecord, issue: JiraIssue | undefined): RemoteIssue {
  const status = issue?.fields?.status;
  if (typeof issue?.id !== 'string' || typeof issue?.key !== 'string')
    throw new TrackerFailure('Jira answered an issue without id or key');
  const closed = status?.statusCategory?.key === 'done';
  const resolution = issue.fields?.resolution?.name;
  return {
    id: issue.id,
    key: issue.key,
    url: `${tracker.baseUrl}/browse/${encodeURIComponent(issue.key)}`,
    status: typeof status?.name === 'string' ? status.name : '',
    closed,
    ...(closed ? { resolution: jiraResolution(typeof resolution === 'string' ? resolution : undefined) } : {}),
  };
}

/** The Atlassian Document Format of plain text: one paragraph per line. */
const adf = (text: string) => ({
  type: 'doc',
  version: 1,
  content: text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => ({ type: 'paragraph', content: [{ type: 'text', text: line }] })),
});

function jiraClient(tracker: TrackerRecord, token: string, allowPrivateNetworks: boolean): TrackerClient {
  const cloud = tracker.kind === 'jira';
  const api = `${tracker.baseUrl}/rest/api/${cloud ? 3 : 2}`;
  const authorization = cloud
    ? `Basic ${Buffer.from(`${tracker.email}:${token}`).toString('base64')}`
    : `Bearer ${token}`;
  const call = (method: 'GET' | 'POST', path: string, body?: unknown, expected?: number[]) =>
    trackerCall({ method, url: `${api}${path}`, headers: { authorization }, body, allowPrivateNetworks, expected });
  const project = /^\d+$/.test(tracker.project!) ? { id: tracker.project } : { key: tracker.project };
  const get = async (ticket: { key: string }) =>
    jiraIssue(
      tracker,
      (await call('GET', `/issue/${encodeURIComponent(ticket.key)}?fields=status,resolution`, undefined, [200]))
        .body as JiraIssue,
    );
  return {
    async findByHash(findingHash) {
      const { body } = await call(
        'POST',
        cloud ? '/search/jql' : '/search',
        {
          jql: `labels = "${hashLabel(findingHash)}" ORDER BY created ASC`,
          fields: ['status', 'resolution'],
          maxResults: 1,
        },
        [200],
      );
      const issues = (body as { issues?: unknown } | undefined)?.issues;
      const first = Array.isArray(issues) ? (issues[0] as JiraIssue | undefined) : undefined;
      return first ? jiraIssue(tracker, first) : undefined;
    },
    async create(issue) {
      const { body } = await call(
        'POST',
        '/issue',
        {
          fields: {
            project,
            issuetype: { name: tracker.issueType ?? 'Bug' },
            summary: issue.summary,
            description: cloud
              ? adf(written(issue.description, plain, plain))
              : written(issue.description, jiraWikiText, jiraWikiText),
            labels: ['hawk-api', hashLabel(issue.findingHash)],
          },
        },
        [200, 201],
      );
      const created = body as JiraIssue | undefined;
      if (typeof created?.id !== 'string' || typeof created?.key !== 'string')
        throw new TrackerFailure('Jira created an issue but answered without its id or key');
      return {
        id: created.id,
        key: created.key,
        url: `${tracker.baseUrl}/browse/${encodeURIComponent(created.key)}`,
        status: '',
        closed: false,
      };
    },
    get,
    async close(ticket) {
      const path = `/issue/${encodeURIComponent(ticket.key)}/transitions`;
      const { body } = await call('GET', path, undefined, [200]);
      const listed = (body as { transitions?: unknown } | undefined)?.transitions;
      const transitions = (Array.isArray(listed) ? listed : []) as {
        id?: unknown;
        to?: { statusCategory?: { key?: unknown } };
      }[];
      // The transition is chosen by where it leads (a status of the done category), never by a configured id.
      const done = transitions.find((t) => t?.to?.statusCategory?.key === 'done' && t.id !== undefined);
      if (!done) throw new TrackerFailure(`Jira offers ${ticket.key} no transition to a status of the done category`);
      await call('POST', path, { transition: { id: String(done.id) } }, [200, 204]);
      return get(ticket);
    },
  };
}

function githubIssue(tracker: TrackerRecord, answer: unknown): RemoteIssue {
  const issue = answer as GithubIssue | undefined;
  if (typeof issue?.number !== 'number') throw new TrackerFailure('GitHub answered an issue without its number');
  const closed = issue.state === 'closed';
  return {
    id: String(issue.number),
    key: `${tracker.repository}#${issue.number}`,
    // Shown as a link in the dashboard: only an http(s) URL is kept.
    url: typeof issue.html_url === 'string' && /^https?:\/\//i.test(issue.html_url) ? issue.html_url : '',
    status: closed ? 'closed' : 'open',
    closed,
    ...(closed ? { resolution: issue.state_reason === 'not_planned' ? 'notPlanned' : 'done' } : {}),
  };
}

function githubClient(tracker: TrackerRecord, token: string, allowPrivateNetworks: boolean): TrackerClient {
  const headers = {
    authorization: `Bearer ${token}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
  };
  const repo = `/repos/${tracker.repository}`;
  const call = (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, expected?: number[]) =>
    trackerCall({ method, url: `${tracker.baseUrl}${path}`, headers, body, allowPrivateNetworks, expected });
  return {
    async findByHash(findingHash) {
      const q = `"${hashLabel(findingHash)}" repo:${tracker.repository} is:issue in:body`;
      const { body } = await call('GET', `/search/issues?q=${encodeURIComponent(q)}&per_page=5`, undefined, [200]);
      const listed = (body as { items?: unknown } | undefined)?.items;
      const items = (Array.isArray(listed) ? listed : []) as GithubIssue[];
      // Search matches words; the body must really carry the hash (and a pull request is no issue).
      const found = items.find(
        (i) => !i?.pull_request && typeof i?.body === 'string' && i.body.includes(hashLabel(findingHash)),
      );
      return found ? githubIssue(tracker, found) : undefined;
    },
    async create(issue) {
      const { body } = await call(
        'POST',
        `${repo}/issues`,
        { title: issue.summary, body: written(issue.description, markdownText, markdownCode) },
        [201],
      );
      return githubIssue(tracker, body);
    },
    async get(ticket) {
      return githubIssue(tracker, (await call('GET', `${repo}/issues/${ticket.id}`, undefined, [200])).body);
    },
    async close(ticket) {
      const { body } = await call(
        'PATCH',
        `${repo}/issues/${ticket.id}`,
        { state: 'closed', state_reason: 'completed' },
        [200],
      );
      return githubIssue(tracker, body);
    },
  };
}

export function trackerClient(tracker: TrackerRecord, token: string, allowPrivateNetworks: boolean): TrackerClient {
  return tracker.kind === 'github'
    ? githubClient(tracker, token, allowPrivateNetworks)
    : jiraClient(tracker, token, allowPrivateNetworks);
}
