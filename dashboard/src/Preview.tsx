// The notification as four platforms show it, each with its own layout and truncation: Chrome on Windows (the
// Windows notification centre), Chrome on macOS (macOS's own banner), Chrome on Android (the shade) and Firefox
// (its own popup on Windows). The limits are what the platforms show before cutting the text, as published by push
// services that measure them (docs/dashboard.md#previews lists the sources); each is given in characters and lines.
import { useId, useState, type ReactNode } from 'react';
import type { CampaignAction } from '../../contract/owner-api.ts';
import { lengthHint, lengthOf, PLATFORMS, truncate, type PlatformId } from './platforms.ts';

export interface PreviewProps {
  title: string;
  body: string;
  icon: string;
  image: string;
  host: string;
  actions: CampaignAction[];
  /** When it arrives, as the header says it ("now" unless scheduled). */
  when?: string;
  /** Choices shown above the preview (the variant and language it shows). */
  controls?: ReactNode;
}

const isHttpUrl = (value: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

export function NotificationPreview(props: PreviewProps) {
  const [platformId, setPlatformId] = useState<PlatformId>('windows');
  // one group of platform choices per preview (the automations screen shows several)
  const group = useId();
  // a picture that does not load is left out, as the browser leaves it out
  const [broken, setBroken] = useState<string[]>([]);
  const shows = (url: string) => isHttpUrl(url) && !broken.includes(url);
  const onError = (url: string) => () => setBroken((current) => [...current, url]);
  const platform = PLATFORMS.find((entry) => entry.id === platformId)!;
  const title = props.title || 'Title';
  const body = props.body || 'The message of the notification.';
  const hints = [
    lengthHint('Title', props.title, (entry) => entry.title.chars),
    lengthHint('Message', props.body, (entry) => entry.body.chars),
  ];
  const cutHere = [
    lengthOf(props.title) > platform.title.chars ? `title cut after ${platform.title.chars} characters` : null,
    lengthOf(props.body) > platform.body.chars ? `message cut after ${platform.body.chars} characters` : null,
  ].filter(Boolean);
  const icon = shows(props.icon) && <img className="preview-icon" src={props.icon} alt="" onError={onError(props.icon)} />;
  return (
    <figure className="preview" aria-label="Preview of the notification" data-platform={platform.id}>
      <div className="preview-platforms" role="radiogroup" aria-label="Preview on">
        {PLATFORMS.map((entry) => (
          <label key={entry.id} className="radio">
            <input type="radio" name={group} checked={entry.id === platform.id} onChange={() => setPlatformId(entry.id)} /> {entry.label}
          </label>
        ))}
      </div>
      {props.controls}
      <div className={`preview-notification preview-${platform.id}`}>
        <div className="preview-header">
          <span className="preview-app">{platform.app}</span> · <span>{props.host}</span> · <span>{props.when ?? 'now'}</span>
        </div>
        <div className="preview-main">
          {platform.id === 'macos' && icon}
          <div className="preview-text">
            <div className="preview-title" style={{ WebkitLineClamp: platform.title.lines }} title={props.title}>
              {truncate(title, platform.title.chars)}
            </div>
            <div className="preview-body" style={{ WebkitLineClamp: platform.body.lines }} title={props.body}>
              {truncate(body, platform.body.chars)}
            </div>
          </div>
          {platform.id !== 'macos' && icon}
        </div>
        {platform.image && shows(props.image) && <img className="preview-image" src={props.image} alt="" onError={onError(props.image)} />}
        {props.actions.length > 0 && platform.actions === 'buttons' && (
          <div className="preview-actions">
            {props.actions.map((action) => (
              <span key={action.action} className="preview-action">
                {action.title}
              </span>
            ))}
          </div>
        )}
        {props.actions.length > 0 && platform.actions === 'menu' && (
          <div className="preview-actions">
            <span className="preview-action" title={props.actions.map((action) => action.title).join(', ')}>
              Options
            </span>
          </div>
        )}
      </div>
      <figcaption className="muted">
        <span data-cut={platform.id}>
          {cutHere.length > 0 ? `On ${platform.label}: ${cutHere.join(', ')}.` : `${platform.label} shows the whole text.`}
        </span>
        {!platform.image && props.image && <span> {platform.label} shows no image.</span>}
        {platform.actions === 'none' && props.actions.length > 0 && <span> {platform.label} shows no buttons.</span>}
        {hints.some(Boolean) && (
          <ul className="preview-hints">
            {hints.filter(Boolean).map((hint) => (
              <li key={hint}>{hint}</li>
            ))}
          </ul>
        )}
      </figcaption>
    </figure>
  );
}
