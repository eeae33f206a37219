import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { fromItem } from '../db/items.ts';
import { config } from '../config.ts';

/** An application as stored (SPEC 2.1). Environments are separate items in the application's partition. */
export interface ApplicationRecord {
  applicationId: string;
  organizationId: string;
  name: string;
  applicationType: 'STANDARD' | 'CLOUD';
  applicationStatus: 'ACTIVE' | 'ENV_INCOMPLETE';
  cloudScanTarget?: { targetURL: string; isDomainVerified: boolean };
  dataType?: string;
  riskLevel?: string;
  /** The team that owns the application, if any (SPEC 4.2 team rules). */
  teamId?: string;
  /** Set when a cascade delete has started: the application is gone for every reader from that moment. */
  deleting?: boolean;
  createdAt: number;
}

export async function getApplication(appId: string): Promise<ApplicationRecord | undefined> {
  const out = await db.send(new GetCommand({ TableName: config.tableName, Key: keys.application(appId) }));
  const app = fromItem<ApplicationRecord>(out.Item);
  return app && !app.deleting ? app : undefined;
}
