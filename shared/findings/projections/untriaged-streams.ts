import type { Projected } from '../../db/entity-write.ts';
import { environmentStreamsWrites } from '../../applications/environment-repository.ts';
import type {
  ApplicationRecord,
  EnvironmentRecord,
  EnvironmentStreams,
  OpenIssueCounts,
} from '../../applications/model.ts';
import { untriagedStreams, type UntriagedPlace } from './triage-figures.ts';

// The untriaged figures of an application's environments' streams, and the application's health they sum into
// (docs/DATA-MODEL.md, Findings and Tool streams; Projections): a projection of the places of the application's
// findings in those figures (triage-figures.ts untriagedStreams: each finding counts, untriaged (UNKNOWN,
// ADD_COMMENT) and of a risk severity, in the stream its counting scan heads). A triage moves a finding's status, a
// retest's fix takes it out of its scan's figures (findings/entities.ts findingsTriage, retestFix). A write that
// moves those figures, or an environment's open issues with them (a retest's fix), writes each such environment
// (conditioned on its streams and figures as read) and, once for all, its application (its figures and counter,
// conditioned on the application as read).

/** The places of an application's findings in their streams' untriaged figures, by environment id then hash. */
export interface UntriagedPlaces {
  places: ReadonlyMap<string, ReadonlyMap<string, UntriagedPlace>>;
}

/** What was read with them: each environment with its streams and its open issues after the write, the application. */
export interface UntriagedContext {
  environments: ReadonlyMap<
    string,
    { env: EnvironmentRecord; streams: EnvironmentStreams; openIssues?: OpenIssueCounts | undefined }
  >;
  /** The application as read for this write (undefined: no figure moves). */
  app: ApplicationRecord | undefined;
  /** Its live environments, when its figures need them (application-repository.ts environmentsOfUncounted). */
  live: readonly EnvironmentRecord[] | undefined;
  now: number;
}

const NONE: ReadonlyMap<string, UntriagedPlace> = new Map();

/**
 * The writes of the environments whose streams' untriaged figures (or open issues) the write from `before` to
 * `after` moves, and of their application; none when nothing moves.
 */
export function project(
  before: UntriagedPlaces | undefined,
  after: UntriagedPlaces | undefined,
  context: UntriagedContext,
): Projected {
  const moved: { env: EnvironmentRecord; streams: EnvironmentStreams; openIssues?: OpenIssueCounts }[] = [];
  for (const [environmentId, { env, streams, openIssues }] of context.environments) {
    const places = (of: UntriagedPlaces | undefined) => of?.places.get(environmentId) ?? NONE;
    const next = untriagedStreams(places(before), places(after), streams);
    if (next || openIssues) moved.push({ env, streams: next ?? streams, ...(openIssues && { openIssues }) });
  }
  if (moved.length === 0) return {};
  const { app, live, now } = context;
  if (!app) throw new Error('a write that moves untriaged figures needs its application as read');
  return { items: environmentStreamsWrites(moved, app, live, now) };
}
