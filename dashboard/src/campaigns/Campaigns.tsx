import type { SiteApi } from '../api.ts';
import { CampaignList } from './CampaignList.tsx';
import { CampaignPage } from './CampaignPage.tsx';
import './campaigns.css';

/** Every campaign of the site (`#/campaigns`), or one campaign's page (`#/campaigns/<id>`). */
export function Campaigns(props: { api: SiteApi; onError(error: unknown): string; selected: string | undefined; canEdit: boolean }) {
  if (props.selected)
    return (
      <CampaignPage key={props.selected} api={props.api} onError={props.onError} campaignId={props.selected} canEdit={props.canEdit} />
    );
  return <CampaignList api={props.api} onError={props.onError} />;
}
