import { useEffect, useState } from 'react';
import type { AudienceQuery, Segment } from '../../../contract/owner-api.ts';
import { formatNumber, type SiteApi } from '../api.ts';
import { describeReach } from '../segments/reach.ts';
import { useLoad } from '../useLoad.ts';
import type { Draft } from './draft.ts';
import { problemIdOf, type DraftFieldsProps } from './draftFieldsProps.ts';
import { Field } from './Field.tsx';

/** The audience query of a draft's choice, or null while the choice is incomplete. */
function queryOf(draft: Draft): AudienceQuery | null {
  if (draft.audience === 'all') return {};
  if (draft.audience === 'segment') return draft.segment ? { segment: draft.segment } : null;
  if (draft.audience === 'audience') return draft.audienceId ? { audience: draft.audienceId } : null;
  return null; // one subscriber: no estimate to give
}

type Estimate = { key: string; recipients: number } | { key: string; error: string };

/** How many the chosen audience reaches now, asked of the provider as the owner picks it (the count the send uses). */
function useEstimate(api: SiteApi, query: AudienceQuery | null, onError: (error: unknown) => string): Estimate | null {
  const key = JSON.stringify(query);
  const [estimate, setEstimate] = useState<Estimate | null>(null);
  useEffect(() => {
    if (query === null) return;
    let live = true;
    api.audience(query).then(
      (recipients) => live && setEstimate({ key, recipients }),
      (failure: unknown) => live && setEstimate({ key, error: onError(failure) }),
    );
    return () => {
      live = false;
    };
    // the query is compared by its key
  }, [api, key]);
  return query !== null && estimate?.key === key ? estimate : null;
}

/**
 * Whom the notification goes to: every active subscriber, an audience (a rule over stored data), the members of a
 * browser segment, or one subscriber; with a live estimate of how many it reaches and, where members and
 * receivers differ, why.
 */
export function AudienceFieldset(props: DraftFieldsProps & { segments: Segment[]; api: SiteApi; onError(error: unknown): string }) {
  const { draft, shown, change, segments, api, onError } = props;
  const audiences = useLoad(() => api.audiences().then((reply) => reply.audiences), onError, [api]);
  const query = queryOf(draft);
  const estimate = useEstimate(api, query, onError);
  const chosenSegment = draft.audience === 'segment' ? segments.find((segment) => segment.sid === draft.segment) : undefined;
  const chosenAudience = draft.audience === 'audience' ? audiences.value?.find((audience) => audience.id === draft.audienceId) : undefined;
  const reach = chosenSegment ?? chosenAudience;
  const pick = (audience: Draft['audience']) => change('audience', audience);
  return (
    <fieldset>
      <legend>Audience</legend>
      <label className="radio">
        <input type="radio" name="audience" checked={draft.audience === 'all'} onChange={() => pick('all')} /> All active subscribers
      </label>
      <label className="radio">
        <input type="radio" name="audience" checked={draft.audience === 'audience'} onChange={() => pick('audience')} /> An audience (from
        stored data)
      </label>
      {draft.audience === 'audience' && (
        <Field id="audienceId" label="Audience" problem={shown.audienceId}>
          <select
            id="audienceId"
            value={draft.audienceId}
            onChange={(e) => change('audienceId', e.target.value)}
            aria-describedby={problemIdOf(shown, 'audienceId') ?? 'audience-estimate'}
          >
            <option value="">Choose an audience</option>
            {(audiences.value ?? []).map((audience) => (
              <option key={audience.id} value={audience.id}>
                {audience.name === audience.id ? audience.id : `${audience.name} (${audience.id})`}: {formatNumber(audience.reachable)} can
                receive
              </option>
            ))}
          </select>
        </Field>
      )}
      <label className="radio">
        <input type="radio" name="audience" checked={draft.audience === 'segment'} onChange={() => pick('segment')} /> A segment
        (browser-side, from the site config)
      </label>
      {draft.audience === 'segment' && (
        <Field id="segment" label="Segment" problem={shown.segment}>
          <select
            id="segment"
            value={draft.segment}
            onChange={(e) => change('segment', e.target.value)}
            aria-describedby={problemIdOf(shown, 'segment') ?? 'audience-estimate'}
          >
            <option value="">Choose a segment</option>
            {segments
              .filter((segment) => segment.createdAt !== null)
              .map((segment) => (
                <option key={segment.sid} value={segment.sid}>
                  {segment.name === segment.sid ? segment.sid : `${segment.name} (${segment.sid})`}: {formatNumber(segment.reachable)} can
                  receive
                </option>
              ))}
          </select>
        </Field>
      )}
      <label className="radio">
        <input type="radio" name="audience" checked={draft.audience === 'subscriber'} onChange={() => pick('subscriber')} /> One subscriber
      </label>
      {draft.audience === 'subscriber' && (
        <Field id="subscriberId" label="Subscriber id" problem={shown.subscriberId}>
          <input id="subscriberId" spellCheck={false} value={draft.subscriberId} onChange={(e) => change('subscriberId', e.target.value)} />
        </Field>
      )}
      {query !== null && (
        <p id="audience-estimate" className="estimate" role="status" aria-live="polite">
          {estimate === null ? (
            'Counting…'
          ) : 'error' in estimate ? (
            <span className="error">{estimate.error}</span>
          ) : (
            <>
              Reaches <strong data-estimate={estimate.recipients}>{formatNumber(estimate.recipients)}</strong> subscriber
              {estimate.recipients === 1 ? '' : 's'} now
              {reach && reach.members !== estimate.recipients ? <> ({describeReach(reach.members, estimate.recipients)})</> : null}.
            </>
          )}
        </p>
      )}
    </fieldset>
  );
}
