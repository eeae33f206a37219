import { describe, expect, it } from 'vitest';
import { wakeAgents, wakeListener } from '../../shared/perch/signals.ts';

// A waiting poll listens for its organization's wakes before it reads the queue (docs/HOSTED-SCANS.md, Idle
// agents): a run queued between that read and the wait still wakes it at once, instead of after its whole wait.

describe('an agent poll’s wake listener', () => {
  it('keeps a wake that came before the wait, and wakes a wait in progress', async () => {
    const wakes = wakeListener('org-a');
    wakeAgents('org-a'); // a start between the poll's read and its wait
    const started = Date.now();
    expect(await wakes.wait(10_000)).toBe(true);
    const waiting = wakes.wait(10_000);
    setTimeout(() => wakeAgents('org-a'), 10);
    expect(await waiting).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    wakes.close();
  });

  it('times out without a wake of its own organization, and hears nothing once closed', async () => {
    const wakes = wakeListener('org-b');
    wakeAgents('org-c');
    expect(await wakes.wait(20)).toBe(false);
    wakes.close();
    wakeAgents('org-b');
    expect(await wakes.wait(20)).toBe(false);
  });
});
