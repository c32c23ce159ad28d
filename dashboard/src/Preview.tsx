// The notification as a desktop Chromium shows it: the site's host, the title, the body, the icon on the
// right, the large image under them and up to two buttons.
import { useState } from 'react';
import type { CampaignAction } from '../../contract/owner-api.ts';

export interface PreviewProps {
  title: string;
  body: string;
  icon: string;
  image: string;
  host: string;
  actions: CampaignAction[];
}

const isHttpUrl = (value: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

export function NotificationPreview(props: PreviewProps) {
  // a picture that does not load is left out, as the browser leaves it out
  const [broken, setBroken] = useState<string[]>([]);
  const shows = (url: string) => isHttpUrl(url) && !broken.includes(url);
  const onError = (url: string) => () => setBroken((current) => [...current, url]);
  return (
    <figure className="preview" aria-label="Preview of the notification">
      <div className="preview-notification">
        <div className="preview-header">
          <span className="preview-app">Chromium</span> · <span>{props.host}</span> · <span>now</span>
        </div>
        <div className="preview-main">
          <div className="preview-text">
            <div className="preview-title">{props.title || 'Title'}</div>
            <div className="preview-body">{props.body || 'The message of the notification.'}</div>
          </div>
          {shows(props.icon) && <img className="preview-icon" src={props.icon} alt="" onError={onError(props.icon)} />}
        </div>
        {shows(props.image) && <img className="preview-image" src={props.image} alt="" onError={onError(props.image)} />}
        {props.actions.length > 0 && (
          <div className="preview-actions">
            {props.actions.map((action) => (
              <span key={action.action} className="preview-action">
                {action.title}
              </span>
            ))}
          </div>
        )}
      </div>
      <figcaption className="muted">How a desktop Chromium shows it; other browsers lay it out their own way.</figcaption>
    </figure>
  );
}
