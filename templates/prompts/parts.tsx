// Small pieces shared by the prompt components.
import type { SiteConfig } from '../../config/schema.ts';

export function SiteIcon({ config }: { config: SiteConfig }) {
  if (!config.style.iconUrl) return null;
  return <img className="pk-icon" src={config.style.iconUrl} alt="" width={48} height={48} loading="lazy" />;
}

export function Branding({ config }: { config: SiteConfig }) {
  const { brandingType, brandingText } = config.style;
  if (brandingType === 'none') return null;
  return <p className="pk-branding">{brandingType === 'custom' ? brandingText : 'Powered by push-kit'}</p>;
}

export function ConsentCheckbox({ id }: { id: string }) {
  return (
    <label className="pk-consent" htmlFor={id}>
      <input type="checkbox" id={id} data-pk-consent="" />
      <span>Allow this site to record which pages I click, to send me more relevant notifications</span>
    </label>
  );
}
