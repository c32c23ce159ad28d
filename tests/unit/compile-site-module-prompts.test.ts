// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import type { SiteConfigInput } from '../../config/schema.ts';
import { validConfig } from '../support/valid-config.ts';
import { siteFeatures } from '../../compiler/features.ts';
import { renderPrompts } from '../../emit/render-prompts.tsx';
import { DEFAULT_TEXTS } from '../../config/default-texts.ts';

const base: SiteConfigInput = {
  hash: 'prompts-test-01',
  companyName: 'Prompt Test',
  origin: 'https://site.example',
  serverSyncUrl: 'https://push.example',
  vapidPublicKey: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s',
};

async function promptsOf(input: Partial<SiteConfigInput>) {
  const { config, compiled } = validConfig({ ...base, ...input });
  return renderPrompts(config, siteFeatures(config, compiled));
}

function parse(markup: string): HTMLElement {
  const holder = document.createElement('div');
  holder.innerHTML = markup;
  expect(holder.children).toHaveLength(1);
  return holder.firstElementChild as HTMLElement;
}

describe('prompt markup', () => {
  it('every prompt root is hidden and named by data-pk; buttons carry their action', async () => {
    const prompts = await promptsOf({ pcBranding: 1 });
    const roots = {
      chicklet: prompts.chicklet,
      context: prompts.contextBox,
      subscribed: prompts.alreadySubscribed,
      blocked: prompts.blocked,
      failed: prompts.subscribeFailed,
      modal: prompts.brandingModal ?? '',
      mobile: (await promptsOf({ style: { isMobileEnabled: true } })).mobileBox ?? '',
    };
    for (const [name, markup] of Object.entries(roots)) {
      const root = parse(markup);
      expect(root.getAttribute('data-pk'), name).toBe(name);
      expect(root.hasAttribute('hidden'), name).toBe(true);
      for (const element of root.querySelectorAll('[class]')) {
        for (const className of element.classList) expect(className, name).toMatch(/^pk-/);
      }
    }
    const chicklet = parse(prompts.chicklet);
    expect([...chicklet.querySelectorAll('button')].map((b) => [b.dataset.pkAction, b.textContent])).toEqual([
      ['no', 'No'],
      ['yes', 'Yes'],
    ]);
    expect(chicklet.textContent).toContain(DEFAULT_TEXTS.offer);
    expect(parse(prompts.contextBox).textContent).toContain(DEFAULT_TEXTS.contextBox);
    expect(parse(prompts.alreadySubscribed).textContent).toContain(DEFAULT_TEXTS.alreadySubscribed);
    expect(parse(prompts.blocked).textContent).toContain(DEFAULT_TEXTS.blocked);
    expect(parse(prompts.subscribeFailed).textContent).toContain(DEFAULT_TEXTS.subscribeFailed);
    expect(parse(prompts.subscribeFailed).querySelector('button[data-pk-action="close"]')).not.toBeNull();
    expect(parse(roots.mobile).querySelector('button[data-pk-action="close"]')).not.toBeNull();
    const dialog = parse(roots.modal).querySelector('[role="dialog"]');
    expect(dialog?.getAttribute('aria-modal')).toBe('true');
    const titleId = dialog?.getAttribute('aria-labelledby') ?? '';
    expect(dialog?.querySelector(`#${titleId}`)?.textContent).toBe('Prompt Test');
    expect(prompts.css).toMatch(/\.pk-prompt\{[^}]*position:fixed/);
  });

  it('the branding modal and mobile box exist only when their feature is on', async () => {
    const prompts = await promptsOf({ pcBranding: 1, isNativeOptin: 0 });
    expect(prompts.brandingModal).toBeUndefined();
    expect(prompts.mobileBox).toBeUndefined();
    // the branding modal is the prompt on phones too: a site with it carries no mobile box
    const both = await promptsOf({ pcBranding: 1, style: { isMobileEnabled: true } });
    expect([!!both.brandingModal, both.mobileBox]).toEqual([true, undefined]);
  });

  it('the consent checkbox appears in the chicklet, modal and mobile box only with tracking consent on', async () => {
    const on = await promptsOf({ pcBranding: 1, pageClickTrackingConcent: true });
    const onMobile = await promptsOf({ style: { isMobileEnabled: true }, pageClickTrackingConcent: true });
    for (const markup of [on.chicklet, on.brandingModal ?? '', onMobile.mobileBox ?? '']) {
      const box = parse(markup).querySelector<HTMLInputElement>('input[type="checkbox"][data-pk-consent]');
      expect(box).not.toBeNull();
      expect(box?.checked).toBe(false);
      expect(parse(markup).querySelector(`label[for="${box?.id}"]`)?.textContent).toMatch(/pages I click/);
    }
    const off = await promptsOf({ pcBranding: 1 });
    expect(off.chicklet).not.toContain('data-pk-consent');
    expect(off.brandingModal).not.toContain('data-pk-consent');
    expect((await promptsOf({ style: { isMobileEnabled: true } })).mobileBox).not.toContain('data-pk-consent');
  });

  it('honours brandingType, brandingText and iconUrl', async () => {
    const custom = await promptsOf({
      style: { brandingType: 'custom', brandingText: 'By Ink & Co', iconUrl: 'https://site.example/i.png' },
    });
    expect(parse(custom.chicklet).querySelector('.pk-branding')?.textContent).toBe('By Ink & Co');
    expect(parse(custom.chicklet).querySelector('img')?.getAttribute('src')).toBe('https://site.example/i.png');
    const standard = await promptsOf({});
    expect(parse(standard.chicklet).querySelector('.pk-branding')?.textContent).toBe('Powered by push-kit');
    expect(parse(standard.chicklet).querySelector('img')).toBeNull();
    const none = await promptsOf({ style: { brandingType: 'none' } });
    expect(parse(none.chicklet).querySelector('.pk-branding')).toBeNull();
  });

  it('escapes config text: markup in a text stays text', async () => {
    const hostile = '<img src=x onerror=alert(1)> "quoted" & </div>';
    const prompts = await promptsOf({ texts: { offer: hostile }, pcBranding: 1, companyName: hostile });
    const chicklet = parse(prompts.chicklet);
    expect(chicklet.querySelector('.pk-text')?.textContent).toBe(hostile);
    expect(chicklet.querySelectorAll('img')).toHaveLength(0);
    expect(parse(prompts.brandingModal ?? '').querySelector('h2')?.textContent).toBe(hostile);
  });

  it('the iOS "Add to Home Screen" instructions exist only when enabled, hidden, closable, their text escaped', async () => {
    expect((await promptsOf({})).homeScreen).toBeUndefined();
    const hostile = '<img src=x onerror=alert(1)> Share, then "Add to Home Screen" & open it';
    const prompts = await promptsOf({
      iosHomeScreen: { enabled: true, instructions: hostile },
      style: { iconUrl: 'https://site.example/icon.png' },
    });
    const root = parse(prompts.homeScreen ?? '');
    expect([root.getAttribute('data-pk'), root.hidden]).toEqual(['homeScreen', true]);
    expect(root.querySelector('.pk-text')?.textContent).toBe(hostile);
    expect(root.querySelectorAll('img:not(.pk-icon)')).toHaveLength(0);
    expect(root.querySelector('[data-pk-action="close"]')).not.toBeNull();
  });
});
