import { baseUrl } from './client.ts';
import { fromProtobuf } from '../protobuf-reference.ts';

/** GETs `path` asking for protobuf and decodes the answer as `message` (to compare with the JSON answer). */
export async function getProtobuf(
  path: string,
  token: string,
  message: string,
): Promise<{ contentType: string | null; decoded: Record<string, unknown> }> {
  const response = await fetch(new URL(path, baseUrl()), {
    headers: { authorization: `Bearer ${token}`, accept: 'application/x-protobuf' },
  });
  return {
    contentType: response.headers.get('content-type'),
    decoded: fromProtobuf(message, new Uint8Array(await response.arrayBuffer())),
  };
}
