// What other capabilities use of automations: their routes, the runner start-provider runs, the events the sync
// and shop calls report (a subscribe, an add-to-cart, an order), and their conversion windows for the click prune.
export { automationRoutes } from './routes.ts';
export { AutomationRunner } from './automation-runner.ts';
export { automationWindows } from './automation-settings.ts';
export { cartAdded, orderPlaced, productChanged, productViewed, subscriberInserted } from './automation-events.ts';
