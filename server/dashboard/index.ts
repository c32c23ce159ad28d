// The owner dashboard: its files at /dashboard/ and how the provider gets them built.
export { dashboardRoutes } from './routes.ts';
export { prepareDashboard, viteBuild } from './dashboard-build.ts';
export { helpInShippedDocs } from './help-pages.ts';
