// The host-page prompts of spec section 2 in Debian's Chromium, at a desktop and a mobile viewport, on the
// example site with the built bundle: the chicklet (Yes / No), the mobile box (close button), the context box
// while the browser asks, the branding modal (pcBranding 1), the already-subscribed and blocked copies.
// Each test reads the visible text (the spec's exact defaults), checks the prompt sits fully on screen with
// readable contrast and that the host page did not move, and saves a screenshot to tests/artifacts/prompts/.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { borrowChromium, type TestBrowser } from '../support/browser.ts';
import { sharedFakeGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStacks, type Stack } from '../support/stack.ts';
import { subscribeThroughApi } from '../support/subscribe.ts';

const ARTIFACTS = join(process.cwd(), 'tests/artifacts/prompts');
const ANDROID_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36';
const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const OFFER = 'This site wants to notify you when it gets new Calligraphy submissions.';
const CONSENT = 'Allow this site to record which pages I click, to send me more relevant notifications';
const CUSTOM_BRANDING = 'Notifications by the Calligraphy Submissions team';
const TEXTS = {
  contextBox: "Please Click on 'Allow' in the permission box to get instant notifications from our website. No Email Required.",
  alreadySubscribed: 'You are already subscribed to get instant alerts from us. Keep an eye on your browser for new notifications from us.',
  blockedStart: 'Uh-oh! You seem to have blocked the notifications last time you came on our website. To see how to subscribe',
};
// No automatic prompt during a test: each test shows the prompt it is about through the public API.
const NO_AUTO_PROMPT = { triggers: { when: 'delay', delaySeconds: 3600 } };

type ViewportName = 'desktop' | 'mobile';
const VIEWPORTS: Record<
  ViewportName,
  { viewport: { width: number; height: number }; userAgent?: string; isMobile?: boolean; hasTouch?: boolean }
> = {
  desktop: { viewport: { width: 1280, height: 800 } },
  mobile: { viewport: { width: 390, height: 844 }, userAgent: ANDROID_UA, isMobile: true, hasTouch: true },
};

let chickletSite: Stack;
let modalSite: Stack;
let gcm: FakeGcm;
const browsers = {} as Record<ViewportName, TestBrowser>;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  gcm = await sharedFakeGcm();
  const launch = async (name: ViewportName): Promise<void> => {
    browsers[name] = await borrowChromium(gcm.chromiumArgs, VIEWPORTS[name]);
  };
  // the two sites (each its own build and origin) on one provider
  [[chickletSite, modalSite]] = await Promise.all([
    startStacks([
      { overrides: NO_AUTO_PROMPT },
      {
        overrides: { ...NO_AUTO_PROMPT, pcBranding: 1, isNativeOptin: 1, style: { brandingType: 'custom', brandingText: CUSTOM_BRANDING } },
      },
    ]) as Promise<[Stack, Stack]>,
    launch('desktop'),
    launch('mobile'),
  ]);
  // Two builds and two browsers at once on a shared machine.
}, 120_000);
afterAll(async () => {
  for (const browser of Object.values(browsers)) await browser.close();
  await gcm?.close();
  await Promise.all([chickletSite?.close(), modalSite?.close()]);
});

/** Position and size of every host element (the prompts' own container excluded), and the page's scroll size. */
function hostLayout(page: Page): Promise<unknown> {
  return page.evaluate(() => {
    const round = (value: number): number => Math.round(value * 100) / 100;
    const boxes = [...document.body.querySelectorAll('*')]
      .filter((element) => !element.closest('#pushkit-prompts') && !['SCRIPT', 'STYLE'].includes(element.tagName))
      .map((element) => {
        const box = element.getBoundingClientRect();
        return `${element.tagName.toLowerCase()}${element.id ? '#' + element.id : ''} ${round(box.x)},${round(box.y)} ${round(box.width)}x${round(box.height)}`;
      });
    return { boxes, scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight] };
  });
}

async function openSite(page: Page, stack: Stack, path = '/'): Promise<void> {
  await page.goto(`${stack.siteUrl}${path}`);
  await page.waitForFunction(() => typeof (window as unknown as { pushkit: { ready?: unknown } }).pushkit.ready === 'object');
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  // The page's own images and fonts settle before the layout is measured.
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
}

const triggerOptIn = (page: Page): Promise<void> =>
  page.evaluate(() => (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit.push(['triggerOptIn']));

const WCAG_AA = 4.5;
function luminance(rgb: number[]): number {
  const [r, g, b] = rgb.map((channel) => {
    const value = channel / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const rgbOf = (color: string): number[] => (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
const contrast = (a: string, b: string): number => {
  const [high, low] = [luminance(rgbOf(a)), luminance(rgbOf(b))].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
};

/**
 * Checks a shown prompt: fully inside the viewport, nothing inside it clipped or overflowing, every text at
 * WCAG AA contrast against the background it sits on, the icon loaded; returns the prompt's box.
 */
async function checkPrompt(page: Page, selector: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const prompt = page.locator(selector);
  await prompt.waitFor({ state: 'visible' });
  const report = await prompt.evaluate((root) => {
    const backgroundOf = (element: Element | null): string => {
      for (let node = element; node; node = node.parentElement) {
        const color = getComputedStyle(node).backgroundColor;
        if (color !== 'rgba(0, 0, 0, 0)' && color !== 'transparent') return color;
      }
      return 'rgb(255, 255, 255)';
    };
    const box = (root.querySelector('.pk-modal') ?? root).getBoundingClientRect();
    const texts = [...root.querySelectorAll('p, button, h2, label span')].map((element) => ({
      text: (element.textContent ?? '').trim().slice(0, 30),
      color: getComputedStyle(element).color,
      background: backgroundOf(element),
      overflow: element.scrollWidth > element.clientWidth + 1,
      inside: (() => {
        const inner = element.getBoundingClientRect();
        return (
          inner.left >= box.left - 0.5 && inner.right <= box.right + 0.5 && inner.top >= box.top - 0.5 && inner.bottom <= box.bottom + 0.5
        );
      })(),
    }));
    const icon = root.querySelector<HTMLImageElement>('img.pk-icon');
    return {
      box: { x: box.x, y: box.y, width: box.width, height: box.height },
      texts,
      iconLoaded: icon ? icon.complete && icon.naturalWidth > 0 : null,
    };
  });
  const viewport = page.viewportSize()!;
  const { box } = report;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
  for (const text of report.texts) {
    expect({ ...text, overflow: text.overflow }).toMatchObject({ overflow: false, inside: true });
    expect(contrast(text.color, text.background), `contrast of "${text.text}"`).toBeGreaterThanOrEqual(WCAG_AA);
  }
  if (report.iconLoaded !== null)
    await expect.poll(() => prompt.locator('img.pk-icon').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  return box;
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), animations: 'disabled' });
}

const textOf = (page: Page, selector: string): Promise<string[]> => page.locator(selector).allTextContents();

describe.each(['desktop', 'mobile'] as const)('prompts at the %s viewport', (viewportName) => {
  const context = (): BrowserContext => browsers[viewportName].context;

  it(
    viewportName === 'desktop'
      ? 'the chicklet: bottom-left, offer text, Yes and No'
      : 'the mobile box with its close button, and the chicklet in a narrow desktop window',
    async () => {
      for (const path of ['/', '/centered.html']) {
        const page = await context().newPage();
        await openSite(page, chickletSite, path);
        const before = await hostLayout(page);
        await triggerOptIn(page);
        if (viewportName === 'desktop') {
          const box = await checkPrompt(page, '[data-pk="chicklet"]');
          expect(box.x).toBe(16);
          expect(page.viewportSize()!.height - (box.y + box.height)).toBe(16);
          expect(await textOf(page, '[data-pk="chicklet"] .pk-text')).toEqual([OFFER]);
          expect(await textOf(page, '[data-pk="chicklet"] button')).toEqual(['No', 'Yes']);
          expect(await textOf(page, '[data-pk="chicklet"] .pk-consent')).toEqual([CONSENT]);
          expect(await textOf(page, '[data-pk="chicklet"] .pk-branding')).toEqual(['Powered by push-kit']);
        } else {
          const box = await checkPrompt(page, '[data-pk="mobile"]');
          expect(box.x).toBe(0);
          expect(box.width).toBe(page.viewportSize()!.width);
          expect(box.y + box.height).toBe(page.viewportSize()!.height);
          expect(await textOf(page, '[data-pk="mobile"] .pk-text')).toEqual([OFFER]);
          expect(await textOf(page, '[data-pk="mobile"] [data-pk-action="yes"]')).toEqual(['Yes']);
          expect(await page.locator('[data-pk="mobile"] [data-pk-action="close"]').getAttribute('aria-label')).toBe('Close');
          expect(await page.locator('[data-pk="chicklet"]').isVisible()).toBe(false);
        }
        expect(await hostLayout(page)).toEqual(before);
        await shoot(
          page,
          `${viewportName}-${viewportName === 'desktop' ? 'chicklet' : 'mobile-box'}${path === '/' ? '' : '-centered-page'}`,
        );

        const kind = viewportName === 'desktop' ? 'chicklet' : 'mobile';
        await page.locator(`[data-pk="${kind}"] [data-pk-action="${kind === 'chicklet' ? 'no' : 'close'}"]`).click();
        await expect.poll(() => page.locator(`[data-pk="${kind}"]`).isVisible()).toBe(false);
        expect(Number(await page.evaluate(() => localStorage.getItem('wingify_push_do_not_show_notification_popup')))).toBeGreaterThan(
          Date.now(),
        );
        expect(await hostLayout(page)).toEqual(before);
        await page.close();
      }
      if (viewportName === 'mobile') {
        // A narrow desktop window: no mobile user agent, so the chicklet, fitted to the width.
        const page = await context().newPage();
        const cdp = await context().newCDPSession(page);
        await cdp.send('Emulation.setUserAgentOverride', { userAgent: DESKTOP_UA });
        await openSite(page, chickletSite);
        const before = await hostLayout(page);
        await triggerOptIn(page);
        const box = await checkPrompt(page, '[data-pk="chicklet"]');
        expect(box.x).toBe(16);
        expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width - 16);
        expect(await textOf(page, '[data-pk="chicklet"] button')).toEqual(['No', 'Yes']);
        expect(await hostLayout(page)).toEqual(before);
        await shoot(page, 'mobile-chicklet');
        await page.close();
      }
    },
  );

  it('the context box while the browser asks', async () => {
    const page = await context().newPage();
    // The browser's own prompt stays open (headless answers at once otherwise): the visitor has not decided yet.
    await page.addInitScript(() => {
      Notification.requestPermission = () => new Promise<NotificationPermission>(() => {});
    });
    await openSite(page, chickletSite);
    const before = await hostLayout(page);
    await triggerOptIn(page);
    await page.locator('[data-pk-action="yes"]:visible').first().click();
    const box = await checkPrompt(page, '[data-pk="context"]');
    expect(box.x).toBe(16);
    expect(await textOf(page, '[data-pk="context"] .pk-text')).toEqual([TEXTS.contextBox]);
    expect(await page.locator('[data-pk="context"] img.pk-icon').isVisible()).toBe(true);
    expect(
      await page
        .locator('[data-pk="chicklet"], [data-pk="mobile"]')
        .evaluateAll((elements) => elements.some((element) => !(element as HTMLElement).hidden)),
    ).toBe(false);
    expect(await hostLayout(page)).toEqual(before);
    await shoot(page, `${viewportName}-context-box`);
    await page.close();
  });

  it('the branding modal: fades in, takes the focus, Escape closes it and gives the focus back', async () => {
    for (const path of ['/', '/centered.html']) {
      const page = await context().newPage();
      await openSite(page, modalSite, path);
      const before = await hostLayout(page);
      await page.locator('#subscribe-button').focus();
      await page.keyboard.press('Enter');
      const modal = page.locator('[data-pk="modal"]');
      await modal.waitFor({ state: 'visible' });
      expect(
        await modal.evaluate((element) => [getComputedStyle(element).animationName, getComputedStyle(element).animationDuration]),
      ).toEqual(['pk-fade', '0.5s']);
      expect(
        await page.evaluate(
          () =>
            document.activeElement?.closest('[data-pk]')?.getAttribute('data-pk') +
            ' ' +
            document.activeElement?.getAttribute('data-pk-action'),
        ),
      ).toBe('modal yes');
      expect(await modal.locator('[role="dialog"]').getAttribute('aria-modal')).toBe('true');
      expect(await textOf(page, '#pk-modal-title')).toEqual(['Calligraphy Submissions']);
      expect(await textOf(page, '[data-pk="modal"] .pk-text')).toEqual([OFFER]);
      expect(await textOf(page, '[data-pk="modal"] button')).toEqual(['No', 'Allow']);
      expect(await textOf(page, '[data-pk="modal"] .pk-branding')).toEqual([CUSTOM_BRANDING]);
      await page.waitForTimeout(550);
      const box = await checkPrompt(page, '[data-pk="modal"]');
      const viewport = page.viewportSize()!;
      expect(Math.abs(box.x + box.width / 2 - viewport.width / 2)).toBeLessThanOrEqual(1);
      expect(await hostLayout(page)).toEqual(before);
      await shoot(page, `${viewportName}-branding-modal${path === '/' ? '' : '-centered-page'}`);

      await page.keyboard.press('Escape');
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('subscribe-button');
      await expect.poll(() => modal.isVisible()).toBe(false);
      expect(Number(await page.evaluate(() => localStorage.getItem('wingify_push_do_not_show_notification_popup')))).toBeGreaterThan(
        Date.now(),
      );
      expect(await hostLayout(page)).toEqual(before);
      await page.close();
    }
  });

  it('a focused element without focus() (MathML in older browsers): No still closes the modal and stores the refusal, nothing thrown', async () => {
    const page = await context().newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await openSite(page, modalSite, '/');
    await page.locator('#subscribe-button').focus();
    await page.evaluate(() => {
      localStorage.removeItem('wingify_push_do_not_show_notification_popup');
      (document.getElementById('subscribe-button') as unknown as { focus?: unknown }).focus = undefined;
    });
    await page.keyboard.press('Enter');
    const modal = page.locator('[data-pk="modal"]');
    await modal.waitFor({ state: 'visible' });
    await modal.locator('[data-pk-action="no"]').click();
    await expect.poll(() => modal.isVisible()).toBe(false);
    expect(Number(await page.evaluate(() => localStorage.getItem('wingify_push_do_not_show_notification_popup')))).toBeGreaterThan(
      Date.now(),
    );
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('already subscribed: the already-subscribed copy', async () => {
    await context().grantPermissions(['notifications'], { origin: chickletSite.siteUrl });
    const page = await context().newPage();
    await openSite(page, chickletSite);
    const outcome = await subscribeThroughApi(page);
    expect(outcome.result.status).toBe('SUBSCRIBED');
    await page.reload();
    await openSite(page, chickletSite);
    const before = await hostLayout(page);
    await triggerOptIn(page);
    const box = await checkPrompt(page, '[data-pk="subscribed"]');
    expect(box.x).toBe(16);
    expect(await textOf(page, '[data-pk="subscribed"] .pk-text')).toEqual([TEXTS.alreadySubscribed]);
    expect(await hostLayout(page)).toEqual(before);
    await shoot(page, `${viewportName}-already-subscribed`);
    await page.locator('[data-pk="subscribed"] [data-pk-action="close"]').click();
    await expect.poll(() => page.locator('[data-pk="subscribed"]').isVisible()).toBe(false);
    await page.close();
  });

  it('blocked: the blocked copy', async () => {
    const page = await context().newPage();
    const cdp = await context().newCDPSession(page);
    await cdp.send('Browser.setPermission', { permission: { name: 'notifications' }, setting: 'denied', origin: chickletSite.siteUrl });
    await openSite(page, chickletSite);
    const before = await hostLayout(page);
    await triggerOptIn(page);
    const box = await checkPrompt(page, '[data-pk="blocked"]');
    expect(box.x).toBe(16);
    const [text] = await textOf(page, '[data-pk="blocked"] .pk-text');
    expect(text!.startsWith(TEXTS.blockedStart)).toBe(true);
    expect(text!.length).toBeGreaterThan(TEXTS.blockedStart.length + 20);
    expect(await hostLayout(page)).toEqual(before);
    await shoot(page, `${viewportName}-blocked`);
    await page.close();
  });
});
