import type { SiteApi } from '../api.ts';

/** Every campaign of the site (`#/campaigns`), or one campaign's page (`#/campaigns/<id>`). */
export function Campaigns({ selected }: { api: SiteApi; onError(error: unknown): string; selected: string | undefined; canEdit: boolean }) {
  return (
    <div className="screen">
      <h1>Campaigns</h1>
      {selected && <p className="muted">Campaign {selected}</p>}
    </div>
  );
}
