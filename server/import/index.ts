// Importing subscribers from another service: the owner API's route and the use case the command line calls.
export { importRoutes } from './routes.ts';
export { IMPORT_BATCH_ROWS, importSubscribers, type ImportOptions, type ImportProgress } from './import-subscribers.ts';
