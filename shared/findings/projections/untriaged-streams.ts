import type { Projected } from '../../db/entity-write.ts';
import { environmentStreamsWrites } from '../../applications/environment-repository.ts';
import type { EnvironmentRecord, EnvironmentStreams } from '../../applications/model.ts';
import type { FindingsTriage, FindingsTriageContext } from '../findings-triage.ts';
import { untriagedStreams, type UntriagedPlace } from './triage-figures.ts';

// The untriaged figures of an application's environments' streams, and the application's health they sum into
// (docs/DATA-MODEL.md, Findings and Tool streams; Projections): a projection of a triage of the application's
// findings. Each triaged finding counts, untriaged (UNKNOWN, ADD_COMMENT) and of a risk severity, in the stream its
// counting scan heads (triage-figures.ts untriagedStreams); a triage that moves those figures writes each
// environment whose streams move (conditioned on its streams and figures as read) and, once for all, its application
// (its figures and counter, conditioned on the application as read).

/**
 * The writes of the environments whose streams' untriaged figures the triage from `before` to `after` moves, and of
 * their application; none when no figure moves.
 */
export function project(
  before: FindingsTriage | undefined,
  after: FindingsTriage | undefined,
  context: FindingsTriageContext,
): Projected {
  const moved: { env: EnvironmentRecord; streams: EnvironmentStreams }[] = [];
  for (const [environmentId, triaged] of context.environments) {
    const places = (triage: FindingsTriage | undefined) =>
      new Map(
        [...triaged.findings].map(([hash, finding]): [string, UntriagedPlace] => [
          hash,
          {
            scanId: triaged.countingScans.get(hash),
            severity: finding.severity,
            lastScanUris: finding.lastScanUris,
            status: triage?.rules.get(environmentId)?.get(hash)?.status ?? 'UNKNOWN',
          },
        ]),
      );
    const streams = untriagedStreams(places(before), places(after), triaged.streams);
    if (streams) moved.push({ env: triaged.env, streams });
  }
  if (moved.length === 0) return {};
  const { app, live, now } = context;
  if (!app) throw new Error('a triage that moves untriaged figures needs its application as read');
  return { items: environmentStreamsWrites(moved, app, live, now) };
}
