// What other capabilities use of automations: their routes, the runner start-provider runs, and the events the
// sync and shop calls report (a subscribe, an add-to-cart, an order).
export { automationRoutes } from './routes.ts';
export { AutomationRunner } from './automation-runner.ts';
export { cartAdded, orderPlaced, productChanged, productViewed, subscriberInserted } from './automation-events.ts';
