// What other parts of the provider and cli/ use of a site's team: the owner routes, the sign-in route, and the use
// cases `push-kit members` calls on the database.
export { memberRoutes, signInRoute } from './routes.ts';
export {
  addSiteMember,
  MAX_MEMBERS,
  newSiteMemberKey,
  removeSiteMember,
  setSiteMemberRole,
  SIGN_IN_LINK_HOURS,
  siteAuditLog,
  siteMembers,
} from './member-store.ts';
export { memberName } from './schemas.ts';
