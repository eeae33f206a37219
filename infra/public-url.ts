// Where the dashboard is (docs/DEPLOYMENT.md, Links to the dashboard): `cdk deploy -c publicUrl=https://...` gives
// every function PUBLIC_URL, which makes the links in webhook and chat messages and tracker tickets absolute.
export const PUBLIC_URL_CONTEXT = 'publicUrl';

/** The functions' PUBLIC_URL setting for the context value: none when unset; an http(s) URL without query otherwise. */
export function publicUrlEnvironment(value: unknown): { PUBLIC_URL?: string } {
  if (value === undefined || value === '') return {};
  if (typeof value !== 'string' || !/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/i.test(value))
    throw new Error(
      `context ${PUBLIC_URL_CONTEXT} must be the dashboard's http(s) address without query, got ${JSON.stringify(value)}`,
    );
  return { PUBLIC_URL: value.replace(/\/+$/, '') };
}
