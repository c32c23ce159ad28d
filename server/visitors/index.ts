// The services calls about one visitor (/as, c.gif, /tags, /dyn, attributes, consent).
export { visitorDataRoutes } from './routes.ts';
