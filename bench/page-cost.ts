// Figure 2 of the benchmarks: what push.js costs a page view in Chromium. For the example site's home page,
// main-thread script time and long tasks (CDP Performance.getMetrics, median of repeated loads) with the
// snippet against the same page without it; and the requests push.js makes on the view of a visitor already
// subscribed and in sync. Goals: no request at all on such a view, under 5 ms of main-thread time.
//   npx tsx bench/page-cost.ts [--loads 15]
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { launchPersistentChromium } from '../tests/e2e/support/browser.ts';
import { startFakeGcm } from '../tests/e2e/support/fake-gcm.ts';
import { startStack } from '../tests/e2e/support/stack.ts';

const { values } = parseArgs({ options: { loads: { type: 'string', default: '15' } } });
const LOADS = Number(values.loads);

interface LoadCost {
  scriptMs: number;
  taskMs: number;
  longTasks: number;
}

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function loadCost(page: Page, url: string): Promise<LoadCost> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.addInitScript(() => {
    (window as unknown as { __longTasks: number }).__longTasks = 0;
    new PerformanceObserver((list) => {
      (window as unknown as { __longTasks: number }).__longTasks += list.getEntries().length;
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(url, { waitUntil: 'load' });
  // push.js is async: let it run and settle (its auto-trigger waits 5 s, so nothing of the prompt is counted).
  await page.waitForTimeout(300);
  const { metrics } = await cdp.send('Performance.getMetrics');
  const metric = (name: string) => metrics.find((entry) => entry.name === name)?.value ?? 0;
  const longTasks = await page.evaluate(() => (window as unknown as { __longTasks: number }).__longTasks);
  await cdp.detach();
  return { scriptMs: metric('ScriptDuration') * 1000, taskMs: metric('TaskDuration') * 1000, longTasks };
}

const stack = await startStack();
const gcm = await startFakeGcm();
const browser = await launchPersistentChromium(gcm.chromiumArgs);
try {
  await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
  const withScript: LoadCost[] = [];
  const without: LoadCost[] = [];
  for (let i = 0; i < LOADS; i += 1) {
    for (const [target, url] of [
      [withScript, `${stack.siteUrl}/submissions.html`],
      [without, `${stack.siteUrl}/submissions.html?no-push-kit`],
    ] as const) {
      const page = await browser.context.newPage();
      if (url.endsWith('?no-push-kit')) await page.route('**/push.js', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }));
      target.push(await loadCost(page, url));
      await page.close();
    }
  }

  // A visitor who subscribed on an earlier view: the next views should make no request at all.
  const page = await browser.context.newPage();
  await page.goto(`${stack.siteUrl}/`);
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const queue = (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit;
        queue.push(['subscriptionSuccessCallback', () => resolve()]);
        queue.push(['subscriptionFailureCallback', (result: { message: string }) => reject(new Error(result.message))]);
        queue.push(['triggerOptIn']);
      }),
  );
  await page.close();
  const requests: string[] = [];
  const view = await browser.context.newPage();
  view.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== stack.siteUrl || url.pathname === '/cart.js') requests.push(`${request.method()} ${request.url()}`);
  });
  await view.goto(`${stack.siteUrl}/submissions.html`, { waitUntil: 'load' });
  await view.waitForTimeout(6000);
  await view.close();

  const row = (name: string, costs: LoadCost[]) =>
    console.log(
      name.padEnd(34),
      median(costs.map((cost) => cost.scriptMs)).toFixed(2).padStart(10),
      median(costs.map((cost) => cost.taskMs)).toFixed(2).padStart(10),
      String(median(costs.map((cost) => cost.longTasks))).padStart(11),
    );
  console.log(`page cost, example site /submissions.html, median of ${LOADS} loads`);
  console.log('page'.padEnd(34), 'script ms'.padStart(10), 'task ms'.padStart(10), 'long tasks'.padStart(11));
  row('without push.js', without);
  row('with push.js', withScript);
  const extra = median(withScript.map((cost) => cost.scriptMs)) - median(without.map((cost) => cost.scriptMs));
  const ratio = median(withScript.map((cost) => cost.taskMs)) / median(without.map((cost) => cost.taskMs));
  console.log(`\npush.js adds ${extra.toFixed(2)} ms of script time (goal: under 5 ms); main-thread task time ${ratio.toFixed(3)}x the page without it`);
  console.log(`requests by push.js on a subscribed, in-sync view: ${requests.length} (goal: 0)${requests.length ? `\n  ${requests.join('\n  ')}` : ''}`);
} finally {
  await browser.close();
  await gcm.close();
  await stack.close();
}
