// The "Add to Home Screen" instructions, shown in Safari on iOS/iPadOS outside a home-screen app (iosHomeScreen):
// Web Push exists there only inside the installed web app.
import type { SiteConfig } from '../../config/schema.ts';
import { Branding, SiteIcon } from './parts.tsx';

export function HomeScreenInstructions({ config }: { config: SiteConfig }) {
  return (
    <div className="pk-prompt pk-notice" data-pk="homeScreen" role="dialog" aria-label="Add to Home Screen" hidden>
      <button type="button" className="pk-close" data-pk-action="close" aria-label="Close">
        ×
      </button>
      <SiteIcon config={config} />
      <p className="pk-text">{config.iosHomeScreen.instructions}</p>
      <Branding config={config} />
    </div>
  );
}
