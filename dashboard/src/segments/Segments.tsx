import type { SiteApi } from '../api.ts';
import { useLoad } from '../useLoad.ts';
import { AudienceList } from './AudienceList.tsx';
import { CreateAudienceForm } from './CreateAudienceForm.tsx';
import { CreateSegmentForm } from './CreateSegmentForm.tsx';
import { MemberForm } from './MemberForm.tsx';
import { SegmentList } from './SegmentList.tsx';

/**
 * The segments screen, in two kinds said apart: audiences, rules over what the provider stores, usable at once;
 * and browser segments, whose conditions push.js evaluates on the visitor's page (or that pages and the owner
 * fill), with forms to create one and to add or remove a member.
 */
export function Segments({ api, onError }: { api: SiteApi; onError(error: unknown): string }) {
  const segments = useLoad(() => api.segments(), onError, [api]);
  const audiences = useLoad(() => api.audiences(), onError, [api]);
  return (
    <div className="screen">
      <h1>Segments</h1>
      <section className="card" aria-labelledby="audiences-title">
        <h2 id="audiences-title">Audiences (from stored data, usable now)</h2>
        <p className="muted">
          A rule over what the provider already stores: language, browser, time zone and country, tags, when they subscribed, when last
          seen, clicks and deliveries. Counted now; a campaign to an audience reaches whoever matches when it is sent.
        </p>
        {audiences.error && (
          <p className="error" role="alert">
            {audiences.error}
          </p>
        )}
        {audiences.value && <AudienceList api={api} audiences={audiences.value.audiences} onError={onError} onChanged={audiences.reload} />}
        <CreateAudienceForm api={api} variables={audiences.value?.variables ?? []} onError={onError} onCreated={audiences.reload} />
      </section>
      <h2 className="section-title">Browser segments (from the site config, evaluated on the visitor's page)</h2>
      <p className="muted">
        Conditions in the site config's segmentations run in push.js on the visitor's page; visitors join as they browse, and pages or you
        can add members. A new condition takes effect after a rebuild and new page views.
      </p>
      <SegmentList api={api} segments={segments.value} error={segments.error} onError={onError} onChanged={segments.reload} />
      <div className="columns">
        <CreateSegmentForm api={api} onError={onError} onCreated={segments.reload} />
        <MemberForm api={api} segments={segments.value ?? []} onError={onError} onChanged={segments.reload} />
      </div>
    </div>
  );
}
