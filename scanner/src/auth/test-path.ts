// docs/SCANNER-AUTH.md, Behaviour (testPath): before scanning, one request to testPath.path tells whether the login
// really worked.
import type { TestPathConfig } from './config.ts';
import type { Step } from './http.ts';
import type { Session } from './session.ts';
import { compilePattern } from './patterns.ts';

/** Sends the testPath request through the session and judges it; `ok` is the verdict. */
export async function runTestPath(session: Session, testPath: TestPathConfig): Promise<Step> {
  const method = testPath.requestMethod ?? 'GET';
  const body = testPath.requestBody;
  const response = await session.send(
    {
      method,
      path: testPath.path,
      body,
      headers: body === undefined ? undefined : { 'content-type': guessContentType(body) },
    },
    { reauthenticate: false },
  );
  const judged = testPath.type === 'BODY' ? response.body : response.head;
  const part = testPath.type === 'BODY' ? 'the body' : 'the status line and headers';
  const step = { name: 'testPath', request: `${method} ${response.url}`, status: response.status };
  const quote = (text: string) => session.redact(JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text));

  const failed = testPath.fail === undefined ? undefined : compilePattern(testPath.fail).firstMatch(judged);
  if (failed !== undefined) return { ...step, ok: false, detail: `fail /${testPath.fail}/ matched ${quote(failed)}` };
  if (testPath.success === undefined)
    return { ...step, ok: true, detail: `fail /${testPath.fail}/ did not match ${part}` };
  const succeeded = compilePattern(testPath.success).firstMatch(judged);
  return succeeded !== undefined
    ? { ...step, ok: true, detail: `success /${testPath.success}/ matched ${quote(succeeded)}` }
    : {
        ...step,
        ok: false,
        detail: `success /${testPath.success}/ did not match ${part} (${quote(response.head.split('\r\n')[0])})`,
      };
}

function guessContentType(body: string): string {
  try {
    JSON.parse(body);
    return 'application/json';
  } catch {
    return 'application/x-www-form-urlencoded';
  }
}
