// negotiator ships no types; this is the one module of it the pipeline uses (shared/http/middlewares.ts).
declare module 'negotiator/lib/mediaType.js' {
  /** The media types of `provided` the Accept header allows, most preferred first (all of them when it is absent). */
  export default function preferredMediaTypes(accept: string | undefined, provided: string[]): string[];
}
