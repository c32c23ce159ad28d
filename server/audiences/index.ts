// What other capabilities use of audiences: their routes, the SQL filter of an audience a campaign names, and the
// gate of an automation limited to one.
export { audienceRoutes } from './routes.ts';
export { audienceFilter, countAudienceRule, requireAudience } from './audience-store.ts';
export { automationAudienceGate } from './automation-audience.ts';
