// The subscription sync of spec section 4 (POST /syncSubscriptionAction.php).
export { syncRoute } from './routes.ts';
