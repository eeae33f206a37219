import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A KMS on loopback for the sealing test: the two operations sealing uses (GenerateDataKey, Decrypt), in the AWS
 * JSON 1.1 protocol the SDK speaks, behaving as KMS documents them. A data key is wrapped under a key only this peer
 * holds, bound to the key id and the encryption context: Decrypt with another context or key id, or of an altered
 * blob, answers InvalidCiphertextException / IncorrectKeyException as KMS does.
 */
export interface KmsPeer {
  endpoint: string;
  keyArn: string;
  calls: { operation: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export async function startKmsPeer(): Promise<KmsPeer> {
  const keyArn = 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  const master = randomBytes(32);
  const calls: KmsPeer['calls'] = [];
  const bound = (keyId: string, context: unknown) =>
    Buffer.from(JSON.stringify([keyId, Object.entries((context ?? {}) as object).sort()]));
  const fail = (type: string, message: string) => ({ status: 400, body: { __type: type, message } });

  const answer = (operation: string, body: Record<string, unknown>) => {
    if (body.KeyId !== keyArn) return fail('NotFoundException', `Key '${String(body.KeyId)}' does not exist`);
    if (operation === 'GenerateDataKey') {
      if (body.KeySpec !== 'AES_256') return fail('ValidationException', 'KeySpec must be AES_256 here');
      const plaintext = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', master, iv);
      cipher.setAAD(bound(keyArn, body.EncryptionContext));
      const wrapped = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return {
        status: 200,
        body: { KeyId: keyArn, Plaintext: plaintext.toString('base64'), CiphertextBlob: wrapped.toString('base64') },
      };
    }
    if (operation === 'Decrypt') {
      const blob = Buffer.from(String(body.CiphertextBlob ?? ''), 'base64');
      try {
        const decipher = createDecipheriv('aes-256-gcm', master, blob.subarray(0, 12));
        decipher.setAAD(bound(keyArn, body.EncryptionContext));
        decipher.setAuthTag(blob.subarray(blob.length - 16));
        const plaintext = Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()]);
        return { status: 200, body: { KeyId: keyArn, Plaintext: plaintext.toString('base64') } };
      } catch {
        return fail('InvalidCiphertextException', 'The ciphertext or its encryption context is not valid');
      }
    }
    return fail('UnknownOperationException', `${operation} is not served by this peer`);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.startsWith('TrentService.') ? target.slice('TrentService.'.length) : '';
      let result: { status: number; body: object };
      if (req.method !== 'POST' || req.headers['content-type'] !== 'application/x-amz-json-1.1' || !operation)
        result = fail('UnknownOperationException', 'not a KMS request');
      else if (!/^AWS4-HMAC-SHA256 Credential=/.test(String(req.headers.authorization ?? '')))
        result = { status: 400, body: { __type: 'MissingAuthenticationTokenException', message: 'unsigned' } };
      else {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        calls.push({ operation, body });
        result = answer(operation, body);
      }
      res.writeHead(result.status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(result.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    keyArn,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
