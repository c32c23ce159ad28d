// undici, the client of the push services' and webhooks' posts, loaded at its first use rather than with the modules
// that post: its load is ~150 ms of CPU (~250 ms of wall time), which a command that never posts (`push-kit
// campaigns`, `members`, `keys` ...) and a provider's start before its first post do not pay.
import { createRequire } from 'node:module';

type Undici = typeof import('undici');

let loaded: Undici | undefined;

export const undici = (): Undici => (loaded ??= createRequire(import.meta.url)('undici') as Undici);
