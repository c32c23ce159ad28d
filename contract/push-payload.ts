// The JSON payload of a push message, as the provider sends it and the service worker reads it. The worker
// reads every field defensively: a payload from an older provider or another sender may lack any of them.

export interface PushAction {
  action: string;
  title: string;
  icon?: string;
  /** The page the button opens; the campaign's url when absent. */
  url?: string;
}

export interface PushPayload {
  title?: string;
  body?: string;
  icon?: string;
  image?: string;
  badge?: string;
  url?: string;
  actions?: PushAction[];
  tag?: string;
  requireInteraction?: boolean;
  campaignId?: string | number;
}
