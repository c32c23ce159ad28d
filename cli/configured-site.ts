// The site config that a command's --site names, loaded only when the command needs it: loading the configs
// compiles them, and a command that goes through a running provider may never need them.
import { fromServerError } from './errors.ts';
import type { HostedSite } from '../server/sites.ts';

/** The site config named `name` among `globs`; an unknown name or a bad config is the command line's error (`--site: ...`). */
export async function configuredSite(name: string, globs?: string[], distDir?: string): Promise<HostedSite> {
  try {
    const { siteNamed } = await import('../server/sites.ts');
    return await siteNamed(name, globs, distDir);
  } catch (error) {
    fromServerError(error);
  }
}
