// The run's log (agent events, engine output, each phase with its time) and its uploads to the service.

/**
 * The run's log: timestamped lines, kept whole up to a size, sent to the service at each phase and at the end. The
 * values of the run's scan secrets (given with its acknowledgement) never appear in it, nor in what the agent echoes:
 * wherever a line quotes one (a login URL, a target's answer, an error), it reads ***.
 */
export class RunLog {
  private lines: string[] = [];
  private bytes = 0;
  private dropped = 0;
  private readonly secrets: string[];
  constructor(
    private readonly echo?: (line: string) => void,
    secrets: Iterable<string> = [],
  ) {
    // Longest first, so a secret containing another is hidden whole.
    this.secrets = [...new Set(secrets)].filter(Boolean).sort((a, b) => b.length - a.length);
  }
  /** `text` with every scan secret's value as ***: the run's error message goes through it too. */
  redact(text: string): string {
    return this.secrets.reduce((redacted, secret) => redacted.replaceAll(secret, '***'), text);
  }
  add(line: string) {
    const stamped = `${new Date().toISOString()} ${this.redact(line)}`;
    this.echo?.(stamped);
    if (this.bytes + stamped.length > 900_000) {
      this.dropped++;
      return;
    }
    this.lines.push(stamped);
    this.bytes += stamped.length + 1;
  }
  text() {
    return `${this.lines.join('\n')}\n${this.dropped ? `(${this.dropped} further lines not kept)\n` : ''}`;
  }
}

/**
 * The log's uploads during the run (uploadScanRunLog), in the background, one at a time, the newest text each time:
 * no step of the scan waits for them. The run's end carries the whole log itself (endScanRun), after the upload in
 * flight (`idle`), so no older text lands after it.
 */
export class LogUploads {
  private inFlight: Promise<void> | undefined;
  private again = false;
  /** The text the service holds, as far as the agent knows. */
  stored = '';
  constructor(
    private readonly store: (text: string) => Promise<unknown>,
    private readonly log: RunLog,
    private readonly echo?: (line: string) => void,
  ) {}

  send(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      do {
        this.again = false;
        const text = this.log.text();
        await this.store(text).then(
          () => void (this.stored = text),
          (error: Error) => this.echo?.(`could not store the log: ${error.message}`),
        );
      } while (this.again);
    })().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Resolves once no upload is on its way. */
  async idle(): Promise<void> {
    await this.inFlight;
  }

  /** Whether lines were added since the service last stored the log (or an upload failed). */
  behind(): boolean {
    return this.log.text() !== this.stored;
  }
}
