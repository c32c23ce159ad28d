// What other parts of the provider use of compose: the owner routes of drafts, templates, test devices and test
// sends, and the owner's use cases.
export { composeRoutes } from './routes.ts';
export { addSiteDraft, removeSiteDraft, saveSiteDraft, siteDraft, siteDrafts } from './owner-drafts.ts';
export { addTestDevice, memberTestDevices, removeTestDevice, sendTest } from './test-sends.ts';
