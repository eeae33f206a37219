import { readFileSync } from 'node:fs';

// CPU time of the processes a bench section starts (Linux's /proc): on the bench's machine, shared and with 2 cores,
// the wall time of one run moves with the other processes' load, the CPU time a process spent on it hardly does.

/** The clock ticks of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/**
 * The CPU time (ms) process `pid` spent so far (user and system), and that of its children it waited for (an
 * engine's process, once ended). Undefined where /proc is not there.
 */
export function cpuMs(pid: number | 'self'): { own: number; children: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // After "pid (comm) ": state, then utime, stime, cutime, cstime are the 12th to 15th fields.
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  const ticks = (i: number) => Number(fields[i]) * TICK_MS;
  return { own: ticks(11) + ticks(12), children: ticks(13) + ticks(14) };
}

/** CPU time (ms) spent between two readings of cpuMs. */
export function cpuSpent(
  before: ReturnType<typeof cpuMs>,
  after: ReturnType<typeof cpuMs>,
): { own: number; children: number } | undefined {
  if (!before || !after) return undefined;
  return { own: after.own - before.own, children: after.children - before.children };
}
