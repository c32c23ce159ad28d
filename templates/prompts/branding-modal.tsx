// The branding modal box (pcBranding 1 and isNativeOptin not 0): a dialog before the browser's own prompt.
import type { SiteConfig } from '../../config/schema.ts';
import { Branding, ConsentCheckbox, SiteIcon } from './parts.tsx';

export function BrandingModal({ config, trackingConsent }: { config: SiteConfig; trackingConsent: boolean }) {
  return (
    <div className="pk-backdrop" data-pk="modal" hidden>
      <div className="pk-modal" role="dialog" aria-modal="true" aria-labelledby="pk-modal-title">
        <SiteIcon config={config} />
        <h2 className="pk-title" id="pk-modal-title">
          {config.companyName}
        </h2>
        <p className="pk-text">{config.texts.offer}</p>
        {trackingConsent && <ConsentCheckbox id="pk-consent-modal" />}
        <div className="pk-buttons">
          <button type="button" className="pk-button pk-no" data-pk-action="no">
            {config.texts.noButton}
          </button>
          <button type="button" className="pk-button pk-yes" data-pk-action="yes">
            {config.style.allowTextChildWindow}
          </button>
        </div>
        <Branding config={config} />
      </div>
    </div>
  );
}
