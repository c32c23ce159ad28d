// The mobile box: the offer across the bottom of a phone screen, with a close button, and the page-click tracking
// consent checkbox (on a line of its own under them) when the site asks for it.
import type { SiteConfig } from '../../config/schema.ts';
import { ConsentCheckbox, SiteIcon } from './parts.tsx';

export function MobileBox({ config, trackingConsent }: { config: SiteConfig; trackingConsent: boolean }) {
  return (
    <div className="pk-prompt pk-mobile" data-pk="mobile" role="region" aria-label="Notifications" hidden>
      <SiteIcon config={config} />
      <p className="pk-text">{config.texts.offer}</p>
      {trackingConsent && <ConsentCheckbox id="pk-consent-mobile" />}
      <button type="button" className="pk-button pk-yes" data-pk-action="yes">
        {config.texts.yesButton}
      </button>
      <button type="button" className="pk-close" data-pk-action="close" aria-label="Close">
        ×
      </button>
    </div>
  );
}
