// The boxes that only inform: context box (while the browser asks), already subscribed, blocked, and the
// subscribe that failed after the visitor's Yes.
import type { SiteConfig } from '../../config/schema.ts';
import { Branding, SiteIcon } from './parts.tsx';

function Notice({ kind, config, text }: { kind: 'context' | 'subscribed' | 'blocked' | 'failed'; config: SiteConfig; text: string }) {
  return (
    <div className={`pk-prompt pk-notice pk-${kind}`} data-pk={kind} role="status" hidden>
      <button type="button" className="pk-close" data-pk-action="close" aria-label="Close">
        ×
      </button>
      <SiteIcon config={config} />
      <p className="pk-text">{text}</p>
      <Branding config={config} />
    </div>
  );
}

export function ContextBox({ config }: { config: SiteConfig }) {
  return <Notice kind="context" config={config} text={config.texts.contextBox} />;
}

export function AlreadySubscribed({ config }: { config: SiteConfig }) {
  return <Notice kind="subscribed" config={config} text={config.texts.alreadySubscribed} />;
}

export function Blocked({ config }: { config: SiteConfig }) {
  return <Notice kind="blocked" config={config} text={config.texts.blocked} />;
}

export function SubscribeFailed({ config }: { config: SiteConfig }) {
  return <Notice kind="failed" config={config} text={config.texts.subscribeFailed} />;
}
