import { useEffect, useRef } from 'react';
import type { Campaign } from '../../../contract/owner-api.ts';
import type { SiteApi } from '../api.ts';

const POLL_INTERVAL_MS = 500;

/**
 * While a campaign is being sent: its counts at once and every half second until `finished`, each copy handed
 * to `onCampaign`, each failure (described by `onError`) to `onFailure`. Nothing is reported after the
 * campaign changes or the screen goes.
 */
export function useCampaignProgress(props: {
  api: SiteApi;
  campaignId: string | null;
  finished: boolean;
  onError(error: unknown): string;
  onCampaign(campaign: Campaign): void;
  onFailure(message: string): void;
}) {
  const { api, campaignId, finished, onError } = props;
  // the latest handlers, without starting the polling over each time the caller renders new ones
  const report = useRef(props);
  report.current = props;
  useEffect(() => {
    if (!campaignId || finished) return;
    let live = true;
    const poll = async () => {
      try {
        const campaign = await api.campaign(campaignId);
        if (live) report.current.onCampaign(campaign);
      } catch (failure) {
        if (live) report.current.onFailure(onError(failure));
      }
    };
    void poll();
    const timer = window.setInterval(poll, POLL_INTERVAL_MS);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [campaignId, finished, api, onError]);
}
