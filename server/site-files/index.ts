// The files the provider serves for its sites: the child window page, its workers and stylesheet.
export { siteFileRoutes } from './routes.ts';
