import { describe, expect, it } from 'vitest';
import type { AnswerOf } from '../../shared/http/types.ts';
import { stopScanRoute } from '../../shared/routes.ts';

// A handler's answer is typed from its route's 200 in openapi.json (AnswerOf, shared/http/types.ts): where the public
// schema has an enum, only its values compile. tsc (npm test) checks the lines marked @ts-expect-error: were a value
// outside the enum accepted, the directive itself would fail the typecheck.
type StopAnswer = AnswerOf<typeof stopScanRoute>;

describe("answers' public enums", () => {
  it('an enum field takes its values only; a free string field takes any string', () => {
    const disconnected: StopAnswer = { id: 'k', name: 'agent', status: 'HOSTED_SCANNER_DISCONNECTED' };
    // @ts-expect-error: DISCONNECTED is not one of perch.PerchCommandResponse.status's values
    const misspelled: StopAnswer = { id: 'k', name: 'agent', status: 'DISCONNECTED' };
    const anyString: string = 'STOPPED';
    // @ts-expect-error: a plain string might be any value: the view has to say which of the enum's it is
    const untyped: StopAnswer = { id: 'k', name: 'agent', status: anyString };
    const freeName: StopAnswer = { id: 'k', name: anyString };
    expect([disconnected, misspelled, untyped, freeName]).toHaveLength(4);
  });
});
