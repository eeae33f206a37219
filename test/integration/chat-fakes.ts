import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// Loopback fakes of the two chat receivers webhooks post to, checking what the real services check and answering
// as they answer, so that the `slack` and `teams` formats (shared/webhooks/payloads.ts) are tested against their
// contracts rather than against our own idea of them.
//
// Slack incoming webhook (https://api.slack.com/messaging/webhooks): a JSON POST with `text` and/or `blocks`;
// answers 200 "ok", 400 with an error word (`invalid_payload`, `no_text`, `invalid_blocks`), 429 with Retry-After
// when rate limited (https://api.slack.com/apis/rate-limits), 5xx on its own failures. The Block Kit limits checked are
// those of https://api.slack.com/reference/block-kit/blocks and .../composition-objects: at most 50 blocks in a
// message; header text plain_text, at most 150 characters; section text at most 3000, or 1 to 10 fields of at most
// 2000 each; actions 1 to 25 elements, a button's text plain_text of at most 75 and its url at most 3000; context 1
// to 10 elements; block_id at most 255.
//
// Teams Workflows webhook ("When a Teams webhook request is received", the replacement of Office 365 connectors:
// https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using): a
// message `{"type": "message", "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive", "content":
// <Adaptive Card>}]}`, answered 202 Accepted with no body; Workflows take Adaptive Cards only. Teams shows cards up to
// version 1.5 and messages up to about 28 KB (https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/cards-reference).

export interface FakeRequest {
  at: number;
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  /** What the fake found wrong with the request (empty: the real service would accept it). */
  problems: string[];
}

/** How the fake answers the nth request (1-based): a status (with Retry-After seconds for a 429), or no answer. */
export type Answer = { status: number; retryAfter?: number } | 'hang';

const SLACK_BLOCK_TYPES = new Set([
  'actions',
  'context',
  'divider',
  'file',
  'header',
  'image',
  'input',
  'markdown',
  'rich_text',
  'section',
  'video',
]);

function textObjectProblems(where: string, text: any, max: number, plainOnly = false): string[] {
  if (!text || typeof text !== 'object') return [`${where}: not a text object`];
  const problems: string[] = [];
  if (text.type !== 'plain_text' && (plainOnly || text.type !== 'mrkdwn'))
    problems.push(`${where}.type: ${text.type} (${plainOnly ? 'plain_text' : 'plain_text or mrkdwn'} expected)`);
  if (typeof text.text !== 'string' || text.text.length === 0) problems.push(`${where}.text: empty`);
  else if (text.text.length > max) problems.push(`${where}.text: ${text.text.length} characters (at most ${max})`);
  return problems;
}

/** Why Slack would refuse this incoming-webhook body (an empty list: it would post it). */
export function slackProblems(body: any): string[] {
  if (!body || typeof body !== 'object') return ['invalid_payload'];
  if (body.text === undefined && body.blocks === undefined) return ['no_text'];
  const problems: string[] = [];
  if (body.text !== undefined && (typeof body.text !== 'string' || body.text.length > 40_000))
    problems.push('text: not a string of at most 40000 characters');
  if (body.blocks === undefined) return problems;
  if (!Array.isArray(body.blocks)) return [...problems, 'blocks: not an array'];
  if (body.blocks.length > 50) problems.push(`blocks: ${body.blocks.length} (at most 50)`);
  body.blocks.forEach((block: any, i: number) => {
    const at = `blocks[${i}]`;
    if (!SLACK_BLOCK_TYPES.has(block?.type)) return problems.push(`${at}.type: ${block?.type} is not a block type`);
    if (block.block_id !== undefined && String(block.block_id).length > 255) problems.push(`${at}.block_id: too long`);
    if (block.type === 'header') problems.push(...textObjectProblems(`${at}.text`, block.text, 150, true));
    if (block.type === 'section') {
      if (block.text === undefined && block.fields === undefined) problems.push(`${at}: neither text nor fields`);
      if (block.text !== undefined) problems.push(...textObjectProblems(`${at}.text`, block.text, 3000));
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields) || block.fields.length < 1 || block.fields.length > 10)
          problems.push(`${at}.fields: 1 to 10 expected`);
        else
          block.fields.forEach((field: any, j: number) =>
            problems.push(...textObjectProblems(`${at}.fields[${j}]`, field, 2000)),
          );
      }
    }
    if (block.type === 'actions') {
      if (!Array.isArray(block.elements) || block.elements.length < 1 || block.elements.length > 25)
        problems.push(`${at}.elements: 1 to 25 expected`);
      else
        block.elements.forEach((element: any, j: number) => {
          if (element?.type !== 'button') return;
          problems.push(...textObjectProblems(`${at}.elements[${j}].text`, element.text, 75, true));
          if (element.url !== undefined && (typeof element.url !== 'string' || element.url.length > 3000))
            problems.push(`${at}.elements[${j}].url: at most 3000 characters`);
          if (element.url !== undefined && !/^https?:\/\//.test(element.url))
            problems.push(`${at}.elements[${j}].url: not an http(s) URL`);
        });
    }
    if (block.type === 'context' && (!Array.isArray(block.elements) || block.elements.length > 10))
      problems.push(`${at}.elements: 1 to 10 expected`);
    return undefined;
  });
  return problems;
}

const CARD_ELEMENTS = new Set([
  'TextBlock',
  'FactSet',
  'ColumnSet',
  'Container',
  'Image',
  'ImageSet',
  'RichTextBlock',
  'ActionSet',
  'Table',
]);

/** Why a Teams Workflows webhook would not post this body as an Adaptive Card (empty: it would). */
export function teamsProblems(body: any, raw: string): string[] {
  const problems: string[] = [];
  if (Buffer.byteLength(raw) > 28 * 1024) problems.push(`message: ${Buffer.byteLength(raw)} bytes (at most 28 KB)`);
  if (body?.type !== 'message') problems.push(`type: ${body?.type} ("message" expected)`);
  if (!Array.isArray(body?.attachments) || body.attachments.length === 0)
    return [...problems, 'attachments: none (one Adaptive Card expected)'];
  body.attachments.forEach((attachment: any, i: number) => {
    const at = `attachments[${i}]`;
    if (attachment?.contentType !== 'application/vnd.microsoft.card.adaptive')
      problems.push(`${at}.contentType: ${attachment?.contentType} (only Adaptive Cards are posted)`);
    const card = attachment?.content;
    if (card?.type !== 'AdaptiveCard') problems.push(`${at}.content.type: ${card?.type} ("AdaptiveCard" expected)`);
    if (typeof card?.version !== 'string' || !/^1\.[0-5]$/.test(card.version))
      problems.push(`${at}.content.version: ${card?.version} (1.0 to 1.5 expected)`);
    if (!Array.isArray(card?.body)) return problems.push(`${at}.content.body: not an array`);
    card.body.forEach((element: any, j: number) => {
      const where = `${at}.content.body[${j}]`;
      if (!CARD_ELEMENTS.has(element?.type)) problems.push(`${where}.type: ${element?.type} is not an element`);
      if (element?.type === 'TextBlock' && (typeof element.text !== 'string' || !element.text))
        problems.push(`${where}.text: empty`);
      if (element?.type === 'FactSet') {
        if (!Array.isArray(element.facts) || element.facts.length === 0) problems.push(`${where}.facts: none`);
        else
          element.facts.forEach((fact: any, k: number) => {
            if (typeof fact?.title !== 'string' || typeof fact?.value !== 'string')
              problems.push(`${where}.facts[${k}]: title and value must be strings`);
          });
      }
    });
    for (const [j, action] of (card.actions ?? []).entries())
      if (action?.type === 'Action.OpenUrl' && (typeof action.url !== 'string' || !/^https?:\/\//.test(action.url)))
        problems.push(`${at}.content.actions[${j}].url: not an http(s) URL`);
    return undefined;
  });
  return problems;
}

interface Fake {
  url: string;
  received: FakeRequest[];
  /** Requests taken and not answered yet (the 'hang' answer). */
  hanging: () => number;
  /** Answers every hanging request 200 and closes the server. */
  close: () => Promise<void>;
}

async function startFake(
  check: (body: any, raw: string) => string[],
  reply: (response: ServerResponse, answer: Exclude<Answer, 'hang'>, problems: string[]) => void,
  answers: (n: number) => Answer,
): Promise<Fake> {
  const received: FakeRequest[] = [];
  const held = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      let problems: string[];
      try {
        body = JSON.parse(raw);
        problems =
          request.headers['content-type'] === 'application/json'
            ? check(body, raw)
            : [`content-type: ${request.headers['content-type']}`];
      } catch {
        problems = ['invalid_payload'];
      }
      received.push({ at: Date.now(), headers: request.headers, raw, body, problems });
      const answer = answers(received.length);
      if (answer === 'hang') {
        held.add(response);
        response.on('close', () => held.delete(response));
        return;
      }
      reply(response, answer, problems);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    hanging: () => held.size,
    close: async () => {
      for (const response of held) response.writeHead(200).end('ok');
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A Slack incoming webhook at `<url>/services/T000/B000/secret`: `answers(n)` says how it answers a valid request. */
export async function startSlackFake(answers: (n: number) => Answer = () => ({ status: 200 })) {
  const fake = await startFake(
    slackProblems,
    (response, answer, problems) => {
      if (problems.length) {
        const word = problems[0] === 'invalid_payload' || problems[0] === 'no_text' ? problems[0] : 'invalid_blocks';
        response.writeHead(400, { 'content-type': 'text/plain' }).end(word);
      } else if (answer.status === 429)
        response
          .writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(answer.retryAfter ?? 1) })
          .end('rate_limited');
      else
        response
          .writeHead(answer.status, { 'content-type': 'text/plain' })
          .end(answer.status === 200 ? 'ok' : 'internal_error');
    },
    answers,
  );
  return { ...fake, url: `${fake.url}/services/T000/B000/XXXXXXXXXXXXXXXX` };
}

/** A Teams Workflows webhook: 202 with no body for a card it would post, 400 with the problem otherwise. */
export async function startTeamsFake(answers: (n: number) => Answer = () => ({ status: 202 })) {
  const fake = await startFake(
    teamsProblems,
    (response, answer, problems) => {
      if (problems.length)
        response
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 'InvalidRequestContent', message: problems.join('; ') } }));
      else response.writeHead(answer.status).end();
    },
    answers,
  );
  return { ...fake, url: `${fake.url}/workflows/a1b2c3/triggers/manual/paths/invoke?sig=secret` };
}
