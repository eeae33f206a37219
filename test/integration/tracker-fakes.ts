import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// Fakes of Jira Cloud (REST v3), Jira Server / Data Center (REST v2) and GitHub (REST) on loopback, for
// test/integration/trackers.test.ts. Each checks every request against what the real API requires (path, method,
// credentials, headers, the JSON fields of a body) and answers as the real one does: a request the real API would
// refuse is answered as it would be (401, 400, 404) and recorded in `violations`, so a test can assert there were
// none. `failNext` makes the next requests fail (429 with Retry-After, 5xx), as a tracker under load or down does.

export type FakeKind = 'jira' | 'jiraServer' | 'github';

export interface FakeIssue {
  id: string;
  key: string;
  number: number;
  summary: string;
  description: unknown;
  labels: string[];
  /** Jira: the status's category key (new, indeterminate, done); GitHub: open / closed. */
  category: 'new' | 'done';
  statusName: string;
  resolution: string | null;
  stateReason: 'completed' | 'not_planned' | null;
}

export interface RecordedRequest {
  at: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  status: number;
}

interface Failure {
  status: number;
  retryAfter?: string;
}

export interface FakeTracker {
  kind: FakeKind;
  /** What a connection's baseUrl is (Jira: the site; GitHub: the API). */
  baseUrl: string;
  issues: FakeIssue[];
  requests: RecordedRequest[];
  violations: string[];
  failNext(failures: Failure[]): void;
  /** While set, every request answers 500, as a tracker that is down behind its proxy does. */
  down: boolean;
  /** Closes an issue as people do in the tracker's own UI. */
  closeByPeople(key: string, how: 'done' | 'notPlanned'): void;
  close(): Promise<void>;
}

const JIRA_TRANSITIONS = [
  { id: '11', name: 'To Do', to: { id: '10000', name: 'To Do', statusCategory: { id: 2, key: 'new', name: 'To Do' } } },
  {
    id: '21',
    name: 'In Progress',
    to: { id: '3', name: 'In Progress', statusCategory: { id: 4, key: 'indeterminate' } },
  },
  {
    id: '31',
    name: 'Resolve',
    to: { id: '10001', name: 'Done', statusCategory: { id: 3, key: 'done', name: 'Done' } },
  },
];

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const isAdf = (doc: any) =>
  doc?.type === 'doc' &&
  doc.version === 1 &&
  Array.isArray(doc.content) &&
  doc.content.every((p: any) => p?.type === 'paragraph' && Array.isArray(p.content));

export async function startFakeTracker(
  kind: FakeKind,
  credentials: { email?: string; token: string; repository?: string; project?: string },
): Promise<FakeTracker> {
  const issues: FakeIssue[] = [];
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const failures: Failure[] = [];
  let base = '';

  const jiraIssueView = (issue: FakeIssue) => ({
    id: issue.id,
    key: issue.key,
    self: `${base}/rest/api/${kind === 'jira' ? 3 : 2}/issue/${issue.id}`,
    fields: {
      status: {
        name: issue.statusName,
        statusCategory: { key: issue.category === 'done' ? 'done' : 'new', name: issue.statusName },
      },
      resolution: issue.resolution ? { name: issue.resolution } : null,
    },
  });
  const githubIssueView = (issue: FakeIssue) => ({
    number: issue.number,
    html_url: `https://github.example/${credentials.repository}/issues/${issue.number}`,
    title: issue.summary,
    body: issue.description,
    state: issue.category === 'done' ? 'closed' : 'open',
    state_reason: issue.stateReason,
  });

  function jira(method: string, url: URL, headers: IncomingHttpHeaders, body: any): [number, unknown] {
    const version = kind === 'jira' ? 3 : 2;
    const expected =
      kind === 'jira'
        ? `Basic ${Buffer.from(`${credentials.email}:${credentials.token}`).toString('base64')}`
        : `Bearer ${credentials.token}`;
    if (headers.authorization !== expected) return [401, { errorMessages: ['You are not authenticated.'] }];
    const api = `/rest/api/${version}`;
    const path = url.pathname;
    const searchPath = kind === 'jira' ? `${api}/search/jql` : `${api}/search`;
    if (method === 'POST' && path === searchPath) {
      const label = /labels = "([^"]+)"/.exec(body?.jql ?? '')?.[1];
      if (typeof body?.jql !== 'string' || !label) return [400, { errorMessages: ['jql is required'] }];
      const found = issues.filter((i) => i.labels.includes(label)).map(jiraIssueView);
      return [
        200,
        kind === 'jira' ? { issues: found, isLast: true } : { startAt: 0, total: found.length, issues: found },
      ];
    }
    if (method === 'POST' && path === `${api}/issue`) {
      const fields = body?.fields;
      const problems: string[] = [];
      if (!fields?.project?.key && !fields?.project?.id) problems.push('project');
      if (fields?.project?.key && fields.project.key !== credentials.project) problems.push('project');
      if (typeof fields?.summary !== 'string' || !fields.summary || fields.summary.length > 255)
        problems.push('summary');
      if (!fields?.issuetype?.name && !fields?.issuetype?.id) problems.push('issuetype');
      if (kind === 'jira' ? !isAdf(fields?.description) : typeof fields?.description !== 'string')
        problems.push('description');
      if (
        fields?.labels &&
        !(Array.isArray(fields.labels) && fields.labels.every((l: unknown) => typeof l === 'string' && !/\s/.test(l)))
      )
        problems.push('labels');
      if (problems.length)
        return [400, { errors: Object.fromEntries(problems.map((p) => [p, `${p} is invalid`])), errorMessages: [] }];
      const n = issues.length + 1;
      const issue: FakeIssue = {
        id: String(10000 + n),
        key: `${credentials.project}-${n}`,
        number: n,
        summary: fields.summary,
        description: fields.description,
        labels: fields.labels ?? [],
        category: 'new',
        statusName: 'To Do',
        resolution: null,
        stateReason: null,
      };
      issues.push(issue);
      return [201, { id: issue.id, key: issue.key, self: `${base}${api}/issue/${issue.id}` }];
    }
    const issuePath = new RegExp(`^${api}/issue/([^/]+)(/transitions)?$`).exec(path);
    const issue = issuePath && issues.find((i) => i.key === decodeURIComponent(issuePath[1]) || i.id === issuePath[1]);
    if (!issuePath || !issue)
      return [404, { errorMessages: ['Issue does not exist or you do not have permission to see it.'] }];
    if (!issuePath[2] && method === 'GET') return [200, jiraIssueView(issue)];
    if (issuePath[2] && method === 'GET')
      return [200, { transitions: JIRA_TRANSITIONS.filter((t) => t.to.name !== issue.statusName) }];
    if (issuePath[2] && method === 'POST') {
      const transition = JIRA_TRANSITIONS.find((t) => t.id === body?.transition?.id);
      if (!transition) return [400, { errorMessages: ['transition.id is invalid'] }];
      issue.statusName = transition.to.name;
      issue.category = transition.to.statusCategory.key === 'done' ? 'done' : 'new';
      issue.resolution = issue.category === 'done' ? 'Done' : null;
      return [204, undefined];
    }
    return [405, { errorMessages: ['method not allowed'] }];
  }

  function github(method: string, url: URL, headers: IncomingHttpHeaders, body: any): [number, unknown] {
    if (headers.authorization !== `Bearer ${credentials.token}`) return [401, { message: 'Bad credentials' }];
    if (!headers['user-agent'])
      return [
        403,
        { message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header' },
      ];
    if (!String(headers.accept).includes('application/vnd.github+json'))
      return [415, { message: 'Unsupported Media Type' }];
    const repo = `/repos/${credentials.repository}`;
    if (method === 'GET' && url.pathname === '/search/issues') {
      const q = url.searchParams.get('q') ?? '';
      const term = /"([^"]+)"/.exec(q)?.[1];
      if (!term || !q.includes(`repo:${credentials.repository}`)) return [422, { message: 'Validation Failed' }];
      const items = issues.filter((i) => String(i.description).includes(term)).map(githubIssueView);
      return [200, { total_count: items.length, incomplete_results: false, items }];
    }
    if (method === 'POST' && url.pathname === `${repo}/issues`) {
      if (typeof body?.title !== 'string' || !body.title)
        return [422, { message: 'Validation Failed', errors: [{ field: 'title', code: 'missing_field' }] }];
      const n = issues.length + 1;
      const issue: FakeIssue = {
        id: String(n),
        key: `${credentials.repository}#${n}`,
        number: n,
        summary: body.title,
        description: typeof body.body === 'string' ? body.body : '',
        labels: [],
        category: 'new',
        statusName: 'open',
        resolution: null,
        stateReason: null,
      };
      issues.push(issue);
      return [201, githubIssueView(issue)];
    }
    const issuePath = new RegExp(`^${repo}/issues/(\\d+)$`).exec(url.pathname);
    const issue = issuePath && issues.find((i) => i.number === Number(issuePath[1]));
    if (!issue) return [404, { message: 'Not Found' }];
    if (method === 'GET') return [200, githubIssueView(issue)];
    if (method === 'PATCH') {
      if (body?.state !== undefined && !['open', 'closed'].includes(body.state))
        return [422, { message: 'Validation Failed' }];
      if (
        body?.state_reason !== undefined &&
        !['completed', 'not_planned', 'reopened', null].includes(body.state_reason)
      )
        return [422, { message: 'Validation Failed' }];
      if (body.state === 'closed') {
        issue.category = 'done';
        issue.statusName = 'closed';
        issue.stateReason = body.state_reason ?? 'completed';
      }
      return [200, githubIssueView(issue)];
    }
    return [404, { message: 'Not Found' }];
  }

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    const url = new URL(request.url ?? '/', base);
    const method = request.method ?? 'GET';
    let body: any;
    let status: number;
    let answer: unknown;
    const extraHeaders: Record<string, string> = {};
    if (raw && !String(request.headers['content-type']).startsWith('application/json')) {
      [status, answer] = [415, { message: 'Content-Type must be application/json' }];
    } else {
      try {
        body = raw ? JSON.parse(raw) : undefined;
        const failure = fake.down ? { status: 500 } : failures.shift();
        if (failure) {
          status = failure.status;
          answer = { message: 'try again later' };
          if (failure.retryAfter) extraHeaders['retry-after'] = failure.retryAfter;
        } else
          [status, answer] =
            kind === 'github' ? github(method, url, request.headers, body) : jira(method, url, request.headers, body);
      } catch {
        [status, answer] = [400, { message: 'Problems parsing JSON' }];
      }
    }
    requests.push({
      at: Date.now(),
      method,
      path: `${url.pathname}${url.search}`,
      headers: request.headers,
      body,
      status,
    });
    if (status >= 400 && status !== 429 && status < 500)
      violations.push(`${method} ${url.pathname} answered ${status}: ${JSON.stringify(answer)}`);
    if (answer === undefined) response.writeHead(status, extraHeaders).end();
    else
      response.writeHead(status, { 'content-type': 'application/json', ...extraHeaders }).end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeTracker = {
    kind,
    baseUrl: base,
    down: false,
    issues,
    requests,
    violations,
    failNext: (list) => failures.push(...list),
    closeByPeople(key, how) {
      const issue = issues.find((i) => i.key === key);
      if (!issue) throw new Error(`no issue ${key}`);
      issue.category = 'done';
      if (kind === 'github') {
        issue.statusName = 'closed';
        issue.stateReason = how === 'done' ? 'completed' : 'not_planned';
      } else {
        issue.statusName = how === 'done' ? 'Done' : "Won't Do";
        issue.resolution = how === 'done' ? 'Done' : "Won't Do";
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return fake;
}
