// Prompt markup rendered by React at build time; the browser gets plain HTML strings, never React.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { SiteConfig } from '../config/schema.ts';
import type { PromptMarkup, SiteFeatures } from '../runtime/site-module.ts';
import { Chicklet } from '../templates/prompts/chicklet.tsx';
import { AlreadySubscribed, Blocked, ContextBox, SubscribeFailed } from '../templates/prompts/notice-boxes.tsx';
import { BrandingModal } from '../templates/prompts/branding-modal.tsx';
import { MobileBox } from '../templates/prompts/mobile-box.tsx';
import { HomeScreenInstructions } from '../templates/prompts/home-screen.tsx';
import { pruneCss } from './prune-css.ts';
import { applyPromptColors } from './prompt-colors.ts';

const PROMPTS_CSS = join(dirname(fileURLToPath(import.meta.url)), '../templates/prompts/prompts.css');

/**
 * The markup, with what HTML does not need dropped: the `=""` of empty attributes (`hidden`, `alt`) and the `/` of
 * void elements. React escapes `"` and `>` in text and attribute values, so both only ever come from React.
 */
function html(element: ReactElement): string {
  return renderToStaticMarkup(element).replace(/=""/g, '').replace(/\/>/g, '>');
}

export async function renderPrompts(config: SiteConfig, features: SiteFeatures): Promise<PromptMarkup> {
  const consent = features.trackingConsent;
  const markup = {
    chicklet: html(<Chicklet config={config} trackingConsent={consent} />),
    contextBox: html(<ContextBox config={config} />),
    alreadySubscribed: html(<AlreadySubscribed config={config} />),
    blocked: html(<Blocked config={config} />),
    subscribeFailed: html(<SubscribeFailed config={config} />),
    ...(features.brandingModal ? { brandingModal: html(<BrandingModal config={config} trackingConsent={consent} />) } : {}),
    ...(features.mobileBox ? { mobileBox: html(<MobileBox config={config} trackingConsent={consent} />) } : {}),
    ...(features.iosHomeScreen ? { homeScreen: html(<HomeScreenInstructions config={config} />) } : {}),
  };
  const css = pruneCss(applyPromptColors(await readFile(PROMPTS_CSS, 'utf8'), config.style.colors), Object.values(markup).join(''));
  return { ...markup, css };
}
