// Every DynamoDB key of the single table is built here, and only here. docs/DATA-MODEL.md lists the access
// patterns these keys serve. Sort keys starting with '#' mark an entity's own record inside its partition.
export const keys = {
  organization: (orgId: string) => ({ pk: `ORG#${orgId}`, sk: '#ORG' }),

  user: (userId: string) => ({ pk: `USER#${userId}`, sk: '#USER' }),
  /** Claims an e-mail address so that two users cannot share one. */
  userEmail: (email: string) => ({ pk: `EMAIL#${email.toLowerCase()}`, sk: '#EMAIL' }),

  /** A user's membership of an organization; gsi1 lists a user's organizations. */
  membership: (orgId: string, userId: string) => ({
    pk: `ORG#${orgId}`,
    sk: `MEMBER#${userId}`,
    gsi1pk: `USER#${userId}`,
    gsi1sk: `ORG#${orgId}`,
  }),
  membershipsOfOrg: (orgId: string) => ({ pk: `ORG#${orgId}`, skPrefix: 'MEMBER#' }),
  membershipsOfUser: (userId: string) => ({ gsi1pk: `USER#${userId}`, gsi1skPrefix: 'ORG#' }),

  /** An API key, addressed by the hash of its secret (login reads it in one GetItem); gsi1 lists a user's keys. */
  apiKey: (secretHash: string, userId: string, keyId: string) => ({
    pk: `APIKEY#${secretHash}`,
    sk: '#APIKEY',
    gsi1pk: `USER#${userId}`,
    gsi1sk: `APIKEY#${keyId}`,
  }),
  apiKeyBySecretHash: (secretHash: string) => ({ pk: `APIKEY#${secretHash}`, sk: '#APIKEY' }),
  apiKeysOfUser: (userId: string) => ({ gsi1pk: `USER#${userId}`, gsi1skPrefix: 'APIKEY#' }),

  /** An application's own record; its environments (and the application's other children) share its partition. */
  application: (appId: string) => ({ pk: `APP#${appId}`, sk: '#APP' }),
  environment: (appId: string, envId: string) => ({ pk: `APP#${appId}`, sk: `ENV#${envId}` }),

  /** User-activity (audit) entries of an organization, in time order. */
  auditEntry: (orgId: string, timestamp: number, auditId: string) => ({
    pk: `AUDIT#${orgId}`,
    sk: `${String(timestamp).padStart(15, '0')}#${auditId}`,
  }),
};

/** Keys of the rate-limit table: one sliding-window record per subject. */
export const rateLimitKeys = {
  user: (userId: string) => ({ pk: `user#${userId}` }),
  loginKey: (secretHash: string) => ({ pk: `login-key#${secretHash}` }),
  loginSource: (sourceIp: string) => ({ pk: `login-ip#${sourceIp}` }),
};
