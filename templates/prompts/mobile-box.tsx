// The mobile box: the offer across the bottom of a phone screen, with a close button.
import type { SiteConfig } from '../../config/schema.ts';
import { SiteIcon } from './parts.tsx';

export function MobileBox({ config }: { config: SiteConfig }) {
  return (
    <div className="pk-prompt pk-mobile" data-pk="mobile" role="region" aria-label="Notifications" hidden>
      <SiteIcon config={config} />
      <p className="pk-text">{config.texts.offer}</p>
      <button type="button" className="pk-button pk-yes" data-pk-action="yes">
        {config.texts.yesButton}
      </button>
      <button type="button" className="pk-close" data-pk-action="close" aria-label="Close">
        ×
      </button>
    </div>
  );
}
