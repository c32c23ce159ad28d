// What other capabilities use of subscribers: their routes, the "exists or refuse" and browser-proof checks,
// the secret issued at sync, counts, tags and dimensions.
export { subscriberRoutes } from './routes.ts';
export { requireSubscriber } from './require-subscriber.ts';
export { requireProvenSubscriber } from './proof-check.ts';
export { issueSecret, newSecret, secretHash, secretMatches } from './subscriber-secret.ts';
export { countSubscribers, dimensionValues, MAX_TAGS_PER_SUBSCRIBER, setTags, tagsOf } from './subscriber-records.ts';
export { eraseSubscriber, subscriberRecord } from './owner-subscribers.ts';
