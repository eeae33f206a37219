// Single sign-on's model (docs/IDENTITY.md, Single sign-on): a link ticket, the identity a provider signs in, and the
// answer that an account must be linked first. Its stored records are identity's (shared/identity/model.ts). Records,
// types and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and other resources' model.ts, never a
// repository.

export const LINK_TICKET_SECONDS = 10 * 60;

export interface LinkTicket {
  organizationId: string;
  issuer: string;
  subject: string;
  /** The account of the asserted e-mail address when the sign-in found it. */
  userId: string;
  email: string;
  /** Epoch seconds. */
  expiresAt: number;
}

export interface SignedInIdentity {
  issuer: string;
  subject: string;
  email: string;
  name: string;
  groups: string[];
}

/**
 * The sign-in's e-mail address belongs to an account this identity is not linked to. Any organization's owner
 * controls its provider, so its word never links an existing account: the account itself confirms (confirmSsoLink).
 */
export class LinkRequired extends Error {
  constructor(readonly userId: string) {
    super('an account with this e-mail address exists: it must confirm the link');
  }
}
