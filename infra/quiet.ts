// CDK announces every asset it bundles on stderr ("Bundling asset X/Code/Stage..."): one line per function, on
// every synth. `cdk synth --quiet` and the tests keep the terminal for what matters; CDK_VERBOSE=1 shows them.
export function quietBundling<T>(build: () => T): T {
  if (process.env.CDK_VERBOSE) return build();
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
    String(chunk).startsWith('Bundling asset ') ? true : write(chunk, ...rest)) as typeof process.stderr.write;
  try {
    return build();
  } finally {
    process.stderr.write = write;
  }
}
