// What other capabilities use of audiences: their routes, and the SQL filter of an audience a campaign names.
export { audienceRoutes } from './routes.ts';
export { audienceFilter, countAudienceRule, requireAudience } from './audience-store.ts';
