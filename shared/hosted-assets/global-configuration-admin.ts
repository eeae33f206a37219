import { LineCounter, isMap } from 'yaml';
import { DocumentRejected, lineOfOffset, parseBoundedYaml } from '../input/documents.ts';
import { SCAN_CONFIG_LIMITS } from '../limits.ts';
import { badRequest, notFound } from '../errors.ts';
import { config } from '../config.ts';
import { s3 } from '../storage/s3.ts';
import { objectKeys } from '../storage/objects.ts';
import { exists, validName } from './global-configuration.ts';

// Operators' side of global configurations (admin CLI): publish after checking the YAML, and remove.

/** Admin: publishes (or replaces) a global configuration after checking it is a YAML mapping. */
export async function putGlobalConfiguration(input: {
  name: string;
  text: string;
}): Promise<{ name: string; sizeBytes: number }> {
  const { PutObjectCommand } = await import('@aws-sdk/client-s3'); // loaded on use: see storage/s3.ts
  const name = validName(input.name);
  const lineCounter = new LineCounter();
  let document: ReturnType<typeof parseBoundedYaml>;
  try {
    document = parseBoundedYaml(input.text, SCAN_CONFIG_LIMITS, lineCounter);
  } catch (rejected) {
    if (!(rejected instanceof DocumentRejected)) throw rejected;
    const where = rejected.offset === undefined ? '' : ` (line ${lineOfOffset(input.text, rejected.offset)})`;
    throw badRequest(`--file is not valid YAML: ${rejected.message}${where}`);
  }
  const [error] = document.errors;
  if (error) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw badRequest(`--file is not valid YAML: ${error.message.split('\n')[0]} (line ${line}, column ${col})`);
  }
  if (!isMap(document.contents))
    throw badRequest('--file must hold a YAML mapping (a HawkScan configuration such as `app: ...`)');
  const body = Buffer.from(input.text, 'utf8');
  await (
    await s3()
  ).send(
    new PutObjectCommand({
      Bucket: config.assetsBucket,
      Key: objectKeys.globalConfig(name),
      Body: body,
      ContentType: 'application/yaml; charset=utf-8',
    }),
  );
  return { name, sizeBytes: body.length };
}

export async function deleteGlobalConfiguration(input: { name: string }): Promise<{ deleted: string }> {
  const { DeleteObjectCommand } = await import('@aws-sdk/client-s3'); // loaded on use: see storage/s3.ts
  const name = validName(input.name);
  const objectKey = objectKeys.globalConfig(name);
  if (!(await exists(objectKey))) throw notFound(`global configuration ${name} not found`);
  await (await s3()).send(new DeleteObjectCommand({ Bucket: config.assetsBucket, Key: objectKey }));
  return { deleted: name };
}
