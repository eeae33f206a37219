import * as z from 'zod/mini';
import { UNSAFE_TEXT_RULE, unsafeCharacterIn } from '@hawk-api/scanner/text';

// Names people read in lists, audit entries and terminals (applications, environments, teams, scan tags, alert
// names and scan hosts): the one rule for displayable text (scanner/src/text.ts), which imported reports follow too.

/** The check to add to a name schema: 400 naming the field and the character. */
export const displayableText = () =>
  z.superRefine<string>((value, ctx) => {
    const found = unsafeCharacterIn(value);
    if (found) ctx.addIssue({ code: 'custom', message: `${UNSAFE_TEXT_RULE} (${found})`, input: value });
  });
