// The programmatic API of the `push-kit` package: what the command line does, as functions that return
// results instead of printing.
export { loadConfig, siteNameOf, type LoadedConfig } from './config/load-config.ts';
export type { ConfigProblem, ConfigErrorCode } from './config/errors.ts';
export type { SiteConfig } from './config/schema.ts';
export { buildSite, type BuildProblem, type SiteBuildResult } from './emit/build-site.ts';
export { sendCampaign, type SendCampaignOptions, type SendCampaignResult } from './server/campaigns/send-campaign.ts';
export { isServerError, ServerError, type ServerErrorCode } from './server/errors.ts';
export { startProvider, type Provider, type StartProviderOptions } from './server/start-provider.ts';
export type { Clock } from './server/clock.ts';
