// The owner dashboard's overview figures.
export { statsRoutes } from './routes.ts';
