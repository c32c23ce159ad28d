// The bottom-left chicklet: the offer text with Yes and No.
import type { SiteConfig } from '../../config/schema.ts';
import { Branding, ConsentCheckbox, SiteIcon } from './parts.tsx';

export function Chicklet({ config, trackingConsent }: { config: SiteConfig; trackingConsent: boolean }) {
  return (
    <div className="pk-prompt pk-chicklet" data-pk="chicklet" role="region" aria-label="Notifications" hidden>
      <SiteIcon config={config} />
      <p className="pk-text">{config.texts.offer}</p>
      {trackingConsent && <ConsentCheckbox id="pk-consent-chicklet" />}
      <div className="pk-buttons">
        <button type="button" className="pk-button pk-no" data-pk-action="no">
          {config.texts.noButton}
        </button>
        <button type="button" className="pk-button pk-yes" data-pk-action="yes">
          {config.texts.yesButton}
        </button>
      </div>
      <Branding config={config} />
    </div>
  );
}
