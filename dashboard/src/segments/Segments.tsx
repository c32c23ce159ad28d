import type { SiteApi } from '../api.ts';
import { useLoad } from '../useLoad.ts';
import { CreateSegmentForm } from './CreateSegmentForm.tsx';
import { MemberForm } from './MemberForm.tsx';
import { SegmentList } from './SegmentList.tsx';

/** The segments screen: the site's segments, a form to create one, and one to add or remove a member. */
export function Segments({ api, onError }: { api: SiteApi; onError(error: unknown): string }) {
  const segments = useLoad(() => api.segments(), onError, [api]);
  return (
    <div className="screen">
      <h1>Segments</h1>
      <SegmentList api={api} segments={segments.value} error={segments.error} onError={onError} onChanged={segments.reload} />
      <div className="columns">
        <CreateSegmentForm api={api} onError={onError} onCreated={segments.reload} />
        <MemberForm api={api} segments={segments.value ?? []} onError={onError} onChanged={segments.reload} />
      </div>
    </div>
  );
}
