import { absoluteUrl } from '../results/model.ts';

// The finding page's "Reproduce" command (scanresults.AlertMessagesResponse's validationCommand; docs/API.md,
// Reproducing a finding): a curl command that sends the recorded request as it was, for a POSIX shell.

/** A single-quoted shell word: the shell interprets nothing inside it (a quote is closed, escaped and reopened). */
export const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** A request line: `METHOD target [HTTP/version]`, its target absolute (a proxy's) or a path (origin form). */
const REQUEST_LINE = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) (https?:\/\/\S+|\/\S*)(?: HTTP\/\d(?:\.\d)?)?$/i;

/** The request's method and absolute URL: its request line's (with the query), else the finding's own. */
function requestOf(message: Message, host: string): { method: string; url: string; requestLine: boolean } {
  const found = REQUEST_LINE.exec(message.requestHeader.split(/\r?\n/, 1)[0]!.trim());
  const own = absoluteUrl(message.uri, host);
  if (!found) return { method: message.requestMethod.toUpperCase(), url: own, requestLine: false };
  const [, method, target] = found as unknown as [string, string, string];
  return { method, url: target.startsWith('/') ? `${originOf(own, host)}${target}` : target, requestLine: true };
}

const originOf = (url: string, host: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return host.replace(/\/+$/, '');
  }
};

type Message = { uri: string; requestMethod: string; requestHeader: string; requestBody: string };

/**
 * The command: the method, the URL as recorded (`--globoff` keeps curl from expanding `[]` and `{}`, `--path-as-is`
 * from squashing `/../`), each header (Content-Length aside: curl counts the body it sends; an empty value as
 * `Name;`, which curl sends empty) and the body byte for byte (`--data-raw` reads no `@file`). Every value is one
 * single-quoted word, so nothing a scanned target put in a request runs in the shell it is pasted into.
 */
export function validationCommand(message: Message, host: string): string {
  const { method, url, requestLine } = requestOf(message, host);
  const headers = message.requestHeader
    .split(/\r?\n/)
    .slice(requestLine ? 1 : 0)
    .map((line) => /^([^:\s]+):\s*(.*)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => !!m && m[1]!.toLowerCase() !== 'content-length')
    .map(([, name, value]) => (value ? `${name}: ${value}` : `${name};`));
  const hasType = headers.some((h) => /^content-type[:;]/i.test(h));
  const body = message.requestBody
    ? // Without a recorded Content-Type, curl would add its form type to a body: `Content-Type:` stops it.
      [...(hasType ? [] : ['-H', shellQuote('Content-Type:')]), '--data-raw', shellQuote(message.requestBody)]
    : [];
  // HEAD waits for no body: curl's --head, not -X HEAD (which would wait for one).
  const verb = method.toUpperCase() === 'HEAD' ? ['--head'] : ['-X', shellQuote(method)];
  return [
    'curl --globoff --path-as-is',
    ...verb,
    shellQuote(url),
    ...headers.flatMap((h) => ['-H', shellQuote(h)]),
    ...body,
  ].join(' ');
}
