// What other capabilities use of segments: their routes, the "exists or refuse" check and memberships.
export { segmentRoutes } from './routes.ts';
export { requireSegment } from './require-segment.ts';
export { addMembershipTo, ensureSegment, removeMembership, segmentsOfSubscriber } from './segment-store.ts';
