// Text from input (application, environment and alert names, possibly imported from another tool's report; a
// finding's URI and parameter) written into a format that renders markup: one escaper per format, so that the text
// shows as written and brings no link, image, mention, macro or formatting of its own. Only what the service writes
// itself (its words, the dashboard's link) is markup (docs/TRACKERS.md; docs/WEBHOOKS.md, Payloads).

/** Control characters and line or paragraph separators as spaces: a value stays on its line (it opens no block). */
// eslint-disable-next-line no-control-regex -- replacing control characters is the point
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');

/** Written after `@`, `#` and `GH-`: an invisible character that no mention or issue reference spans. */
const ZERO_WIDTH_SPACE = '&#8203;';

/**
 * `text` as literal text in GitHub-flavoured markdown (an issue body): a backslash before every ASCII punctuation
 * character (CommonMark lets each be escaped, and an escaped one is always literal), which leaves no link, image,
 * emphasis, HTML tag, entity, table, heading, list, math, nor an extended autolink (its `:` or `www.` escaped). GitHub
 * finds mentions (`@user`) and issue references (`#1`, `GH-1`) in the rendered text, after the escapes are gone, so
 * a zero-width space follows `@`, `#` and `GH-` (as bots that quote release notes do).
 */
export function markdownText(text: string): string {
  return oneLine(text)
    .replace(/[!-/:-@[-`{-~]/g, '\\$&')
    .replace(/\\[@#]|\bGH\\-/gi, (found) => `${found}${ZERO_WIDTH_SPACE}`);
}

/**
 * `text` as a markdown code span (GitHub renders its content literally and finds no mention, reference or link in
 * code): fenced by one backtick more than its longest run of them, and padded with a space when it starts or ends with
 * a backtick or a space (CommonMark strips one space from each side of such content).
 */
export function markdownCode(text: string): string {
  const line = oneLine(text);
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(line) ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

/** What jiraWikiText writes for the characters a backslash cannot escape in Jira's wiki markup. */
const JIRA_ENTITIES: Record<string, string> = { '\\': '&#92;', ':': '&#58;', '&': '&amp;' };

/**
 * `text` as literal text in Jira's wiki markup (Jira Server and Data Center render descriptions so): a backslash
 * before each character Jira's renderer lets a backslash escape (- # * _ + ? ^ ~ | % { } [ ] ( ) ! @), which leaves
 * no link (`[text|url]`), image (`!url!`), macro (`{code}`, `{color}`, `{noformat}`), mention (`[~user]`),
 * emphasis, table or emoticon. The text's own backslash becomes the entity `&#92;` (two backslashes are a line break,
 * and a backslash cancels the escape that follows it), its `:` `&#58;` (so that no bare URL is linked), and an `&`
 * that would start an entity `&amp;`.
 */
export function jiraWikiText(text: string): string {
  return oneLine(text).replace(
    /[-#*_+?^~|%{}[\]()!@\\:]|&(?=#?[a-z0-9]+;)/gi,
    (found) => JIRA_ENTITIES[found] ?? `\\${found}`,
  );
}

/**
 * Slack's escaping of the three characters its texts parse (`<@U1>`, `<!channel>`, `<url|label>`;
 * https://api.slack.com/reference/surfaces/formatting#escaping). It leaves mrkdwn's `*bold*`, `_italic_`, `~strike~`
 * and code, which Slack cannot escape: a value goes in a plain_text object, or a text Slack is told not to format.
 */
export const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * `text` shown as written in an Adaptive Card's markdown (TextBlock text, Fact title and value:
 * https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/cards-format): a backslash
 * before each character that opens emphasis, a link, an image or code, and before a list marker opening a line, so
 * that an application, environment or path name cannot bring its own links or formatting into the card.
 */
export const teamsEscape = (text: string) =>
  text
    .replace(/[\\`*_~[\]()<>!|{}]/g, '\\$&')
    .replace(/^(\s*)(\d+)\./gm, '$1$2\\.')
    .replace(/^(\s*)([#+=-])/gm, '$1\\$2');
