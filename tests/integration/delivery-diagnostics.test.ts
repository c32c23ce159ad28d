// Delivery diagnostics (issue 30): why each delivery failed, kept with it and shown grouped by reason. The real
// provider sends a campaign to subscribers whose push service answers 403 {"reason":"BadJwtToken"} (Apple's
// answer to a bad VAPID subject), 413, 400, echoes the request's secrets, or whose port refuses connections.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Campaign, NotificationDay, SiteStats, SubscriberExport } from '../../contract/owner-api.ts';
import type { Automation } from '../../contract/automations.ts';
import { DELIVERY_FAILURES_DOCS } from '../../contract/delivery-failures.ts';
import { freePort } from '../support/ports.ts';
import { startProviderHarness, useProviderHarness } from '../support/provider-harness.ts';
import { DEFAULT_CONVERSION_WINDOW_HOURS, pruneCampaignClicks, pruneDeliveries } from '../../server/campaigns/index.ts';
import { pruneEvents } from '../../server/db/event-retention.ts';
import { SITE_HASH, SITE_ORIGIN } from '../support/server.ts';
import { createThrowawayDatabase, openThrowawayPostgres } from '../support/throwaway-postgres.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import pg from 'pg';

/** The click prune's sites as a provider hosting the test site gives them (its default window, 72 hours). */
const LETTERS_WINDOW = { sites: { [SITE_HASH]: DEFAULT_CONVERSION_WINDOW_HOURS } };

const postgresUrl = process.env.PUSHKIT_TEST_DATABASE_URL;
const refusedPort = await freePort();
const refusedOrigin = `https://127.0.0.1:${refusedPort}`;
const log: string[] = [];
const harness = useProviderHarness({
  morePushServices: [refusedOrigin],
  // automated messages go when a test runs them (runDue), not at a moment of the background's choosing
  automationPollMs: 0,
  campaigns: { log: (line) => log.push(line), retry: { maxAttempts: 2, backoffMs: 20 } },
});

/** The overview's notifications per day over a year, of UTC and of Kathmandu (UTC+5:45): the days with figures. */
async function notificationDays(provider: Pick<typeof harness, 'owner'>): Promise<NotificationDay[][]> {
  const zones = ['UTC', 'Asia/Kathmandu'].map(async (zone) => {
    const { notifications } = (await provider.owner('GET', `/stats?days=366&zone=${zone}`)).json() as SiteStats;
    return notifications.filter((day) => day.delivered + day.shown + day.clicked + day.conversions > 0);
  });
  return Promise.all(zones);
}

describe('delivery diagnostics', () => {
  it('groups a campaign’s failures by status, reason and host, links the owner’s fixes, keeps no secret', async () => {
    const apple = [await harness.subscribe({ path: '/diag/apple-1' }), await harness.subscribe({ path: '/diag/apple-2' })];
    for (const { path } of apple) harness.service.answer(path, { status: 403, body: '{"reason":"BadJwtToken"}' });
    const big = await harness.subscribe({ path: '/diag/big' });
    harness.service.answer(big.path, { status: 413, body: '' });
    const bad = await harness.subscribe({ path: '/diag/bad' });
    harness.service.answer(bad.path, { status: 400 });
    // A push service that quotes the request: its Authorization (the VAPID JWT and key) and the endpoint's token.
    const token = randomBytes(24).toString('base64url');
    const echo = await harness.subscribe({ path: `/diag/${token}` });
    let authorization = '';
    harness.service.answer(echo.path, {
      status: 403,
      body: (push) => {
        authorization = String(push.headers.authorization);
        const jwt = /t=([^,]+)/.exec(authorization)![1]!;
        return `refused ${authorization} for ${echo.endpoint}; token ${token}; jwt ${jwt}; ${'x'.repeat(400)}`;
      },
    });
    const refused = await harness.subscribe({ path: '/diag/refused' });
    await harness.db.query('UPDATE subscribers SET endpoint = $1 WHERE id = $2', [`${refusedOrigin}/diag/refused`, refused.id]);

    const created = await harness.owner('POST', '/campaigns', { title: 'Diagnostics', body: 'Why it failed' });
    expect(created.statusCode, created.body).toBe(201);
    const { campaignId } = created.json() as { campaignId: string };
    await harness.campaigns.idle();

    const { campaign } = (await harness.owner('GET', `/campaigns/${campaignId}`)).json() as { campaign: Campaign };
    expect(campaign).toMatchObject({ recipients: 6, delivered: 0, failed: 6 });
    const docs = (anchor: string) => `${DELIVERY_FAILURES_DOCS}#${anchor}`;
    const echoed = campaign.failures.find((group) => group.reason.startsWith('refused'))!;
    expect(campaign.failures).toEqual(
      expect.arrayContaining([
        { status: 403, reason: 'BadJwtToken', host: '127.0.0.1', count: 2, docsUrl: docs('vapid-subject-badjwttoken') },
        { status: 413, reason: 'Payload Too Large', host: '127.0.0.1', count: 1, docsUrl: docs('payload-too-large') },
        { status: 400, reason: 'fake push service says 400', host: '127.0.0.1', count: 1, docsUrl: docs('bad-encryption') },
        { status: null, reason: 'network: connection refused', host: '127.0.0.1', count: 1, docsUrl: null },
        { status: 403, reason: echoed.reason, host: '127.0.0.1', count: 1, docsUrl: docs('vapid-key-mismatch') },
      ]),
    );
    expect(campaign.failures).toHaveLength(5);
    expect(campaign.failures[0]).toMatchObject({ reason: 'BadJwtToken', count: 2 });

    // the echoed secrets are cut out, whole or in parts; the reason stays within 256 bytes
    const jwt = /t=([^,]+)/.exec(authorization)![1]!;
    const publicKey = /k=(\S+)/.exec(authorization)![1]!;
    for (const secret of [jwt, ...jwt.split('.').slice(1), publicKey, token, echo.endpoint]) expect(echoed.reason).not.toContain(secret);
    expect(echoed.reason).toMatch(/^refused \[redacted\]/);
    expect(Buffer.byteLength(echoed.reason)).toBeLessThanOrEqual(256);
    // nor does the stored reason the webhooks and exports read
    const stored = await harness.db.query<{ last_error: string }>('SELECT last_error FROM deliveries WHERE campaign_id = $1', [campaignId]);
    for (const row of stored.rows) expect(row.last_error).not.toContain(jwt.split('.')[2]!);

    // a subscriber's record says why their last push failed, and how often it was tried
    const record = (await harness.owner('GET', `/subscribers/${apple[0]!.id}`)).json() as SubscriberExport;
    expect(record.lastFailure).toMatchObject({
      campaignId,
      outcome: 'failed',
      status: 403,
      reason: 'BadJwtToken',
      host: '127.0.0.1',
      attempts: 1,
      docsUrl: docs('vapid-subject-badjwttoken'),
    });
    const unreachable = (await harness.owner('GET', `/subscribers/${refused.id}`)).json() as SubscriberExport;
    expect(unreachable.lastFailure).toMatchObject({ status: null, reason: 'network: connection refused', attempts: 2 });

    // the provider's one line for the campaign
    const line = log.find((entry) => entry.startsWith(`campaign ${campaignId} `));
    expect(line).toContain('0 delivered, 0 expired, 6 failed');
    expect(line).toContain('403 BadJwtToken from 127.0.0.1: 2');
    expect(line).toContain('network: connection refused: 1');
    expect(line).not.toContain(token);

    // past the reporting window the rows go; the report still says why its 6 failed
    expect(await pruneDeliveries(harness.db, 0)).toBeGreaterThan(0);
    const pruned = ((await harness.owner('GET', `/campaigns/${campaignId}`)).json() as { campaign: Campaign }).campaign;
    expect(pruned).toMatchObject({ failed: 6, prunedAfterDays: 0 });
    expect(pruned.failures).toEqual(campaign.failures);
  });

  it("counts an automation's failed messages by reason", async () => {
    const enabled = await harness.owner('PATCH', '/automations/welcome', { enabled: true });
    expect(enabled.statusCode, enabled.body).toBe(200);
    const welcomed = await harness.subscribe({ path: '/diag/welcome' });
    harness.service.answer(welcomed.path, { status: 413, body: '' });
    harness.clock.advance(6 * 60_000);
    await harness.automations.runDue();
    const { automation } = (await harness.owner('GET', '/automations/welcome')).json() as { automation: Automation };
    expect(automation.stats).toMatchObject({ sent: 1, delivered: 0, failed: 1 });
    expect(automation.stats.failures).toEqual([
      { status: 413, reason: 'Payload Too Large', host: '127.0.0.1', count: 1, docsUrl: `${DELIVERY_FAILURES_DOCS}#payload-too-large` },
    ]);
  });
});

describe('figures that stay right', () => {
  it('a past campaign keeps its figures when a subscriber is deleted; received counts only delivered', async () => {
    const gone = await harness.subscribe({ path: '/keep/gone' });
    const kept = await harness.subscribe({ path: '/keep/kept' });
    const figures = async (campaignId: string) => {
      const { campaign } = (await harness.owner('GET', `/campaigns/${campaignId}`)).json() as { campaign: Campaign };
      return { recipients: campaign.recipients, sent: campaign.sent, delivered: campaign.delivered, failed: campaign.failed };
    };
    const send = async (payload: object) => {
      const created = await harness.owner('POST', '/campaigns', { body: 'Kept', ...payload });
      expect(created.statusCode, created.body).toBe(201);
      await harness.campaigns.idle();
      return (created.json() as { campaignId: string }).campaignId;
    };
    const first = await send({ title: 'Before the deletion' });
    const before = await figures(first);
    expect(before.delivered).toBeGreaterThanOrEqual(2);
    expect((await harness.owner('DELETE', `/subscribers/${gone.id}`)).statusCode).toBe(200);
    expect(await figures(first)).toEqual(before);

    // the kept subscriber: 1 delivered, then 1 failed, then 1 waiting for its time
    harness.service.answer(kept.path, { status: 400 });
    await send({ title: 'Refused' });
    await send({ title: 'Later', sendAt: new Date(harness.clock() + 3_600_000).toISOString() });
    const record = (await harness.owner('GET', `/subscribers/${kept.id}`)).json() as SubscriberExport;
    // (and the welcome automation of the test above, pending)
    const statuses = record.deliveries.map((delivery) => delivery.status);
    expect(statuses.filter((status) => status === 'delivered')).toHaveLength(1);
    expect(statuses).toEqual(expect.arrayContaining(['failed', 'pending']));
    expect(record.received).toBe(1);
    // and once its delivery rows are pruned after the reporting window (here: none) and its TTL; the one still waiting keeps its row
    await harness.db.query(`UPDATE campaigns SET completed_at = completed_at - interval '29 days' WHERE id = $1`, [first]);
    expect(await pruneDeliveries(harness.db, 0)).toBeGreaterThan(0);
    const left = await harness.db.query('SELECT 1 FROM deliveries WHERE campaign_id = $1', [first]);
    expect(left.rows).toHaveLength(0);
    expect(await figures(first)).toEqual(before);
  });

  it('writes a large audience in chunks, each its own statement: every subscriber gets it once', async () => {
    for (let index = 0; index < 3; index += 1) await harness.subscribe({ path: `/chunks/${index}` });
    const { rows } = await harness.db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM subscribers WHERE status = 'subscribed' AND endpoint IS NOT NULL`,
    );
    const audience = rows[0]!.count;
    const statements: string[] = [];
    const query = harness.db.query.bind(harness.db);
    process.env.PUSHKIT_CREATION_CHUNK = '2';
    harness.db.query = ((sql: string, params?: unknown[]) => {
      if (/INSERT INTO deliveries/.test(sql)) statements.push(sql);
      return query(sql, params);
    }) as typeof harness.db.query;
    try {
      const created = await harness.owner('POST', '/campaigns', { title: 'In chunks', body: 'Two rows at a time' });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toMatchObject({ recipients: audience });
      await harness.campaigns.idle();
      const { campaign } = (await harness.owner('GET', `/campaigns/${(created.json() as { campaignId: string }).campaignId}`)).json() as {
        campaign: Campaign;
      };
      expect(campaign).toMatchObject({ recipients: audience, pending: 0, status: 'done' });
    } finally {
      delete process.env.PUSHKIT_CREATION_CHUNK;
      harness.db.query = query;
    }
    // the first chunk in createCampaign's transaction, each further one a statement of its own
    expect(statements.length).toBeGreaterThanOrEqual(Math.ceil((audience - 2) / 2));
    const paths = harness.service.requests.filter((request) => request.path.startsWith('/chunks/')).map((request) => request.path);
    expect(paths.sort()).toEqual(['/chunks/0', '/chunks/1', '/chunks/2']);
  });
});

describe('breakdowns that stay', () => {
  it('A/B, language and best-hour campaigns keep every breakdown after a deletion and after pruning', async () => {
    // only these four: by language and browser; one of them is deleted after the campaigns
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    // each also gets a welcome, due once the clock has moved: another push of theirs that reports must not pick
    expect((await harness.owner('PATCH', '/automations/welcome', { enabled: true })).statusCode).toBe(200);
    const who = (
      [
        ['en-US', 'chrome'],
        ['de-DE', 'firefox'],
        ['de-DE', 'chrome'],
        ['fr-FR', 'safari'],
      ] as const
    ).map(([userLanguage, browserType], index) => harness.subscribe({ path: `/stay/${index}`, fields: { userLanguage, browserType } }));
    const [first, , gone] = await Promise.all(who);
    const report = (push: { body: Buffer }, event: string) =>
      harness.app.inject({
        method: 'POST',
        url: '/notificationEvent',
        headers: { 'content-type': 'text/plain', origin: SITE_ORIGIN },
        payload: JSON.stringify({ hash: SITE_HASH, click: harness.messageOf(push as never).notification.data!.click, event }),
      });
    // a subscriber's push of this campaign, whatever else reached them since (reporting another's would count there)
    const pushOf = (path: string, campaignId: string) => {
      const pushes = harness
        .deliveries(path)
        .filter((push) => String(harness.messageOf(push).notification.data?.campaignId) === campaignId);
      expect(pushes, `${path} got campaign ${campaignId} once`).toHaveLength(1);
      return pushes[0]!;
    };
    const send = async (payload: object) => {
      const created = await harness.owner('POST', '/campaigns', { title: 'Stay', body: 'Kept', ...payload });
      expect(created.statusCode, created.body).toBe(201);
      const { campaignId } = created.json() as { campaignId: string };
      harness.clock.advance(25 * 3_600_000); // the best-hour group's hour has come
      // the run the creation started may have looked before the clock moved; a tick meanwhile skips a queued campaign
      await harness.campaigns.idle();
      await harness.campaigns.tick();
      await harness.campaigns.idle();
      // the welcomes are due too (the first time): they reach them after this campaign, before their reports
      await harness.automations.runDue();
      // everyone reports it shown; the one to be deleted and the first subscriber click
      for (const [index, path] of ['/stay/0', '/stay/1', '/stay/2', '/stay/3'].entries()) {
        const push = pushOf(path, campaignId);
        expect((await report(push, 'shown')).statusCode).toBe(200);
        if (index === 0 || index === 2) expect((await report(push, 'clicked')).statusCode).toBe(200);
      }
      return campaignId;
    };
    const ab = await send({ variants: [{ title: 'A' }, { title: 'B' }], testFraction: 0.95, winnerAfterMinutes: 60 });
    const languages = await send({ texts: { de: { title: 'Bleibt', body: 'Behalten' }, fr: { title: 'Reste', body: 'Gardé' } } });
    const bestHour = await send({ deliverAt: 'best-hour', bestHourHoldout: 0.5 });
    // the first subscriber, a clicker of each, orders in two currencies: revenue, the A/B test's per variant too
    for (const [orderId, total, currency] of [
      ['stay-1', 30, 'USD'],
      ['stay-2', 12.5, 'EUR'],
    ] as const) {
      const order = { total, currency, items: [{ pId: 1, pName: 'Nib set', pPrice: total, pQuant: 1 }] };
      const placed = await harness.owner('POST', '/api/v1/shopify/orders', { hash: SITE_HASH, orderId, subscriberId: first!.id, order });
      expect(placed.statusCode, placed.body).toBe(201);
    }
    const figures = async (id: string) => {
      const { campaign } = (await harness.owner('GET', `/campaigns/${id}`)).json() as { campaign: Campaign };
      const { variants, byLanguage, bestHour, recipients, delivered, shown, clicked, revenue, conversions } = campaign;
      const page = (await harness.owner('GET', `/campaigns/${id}/figures`)).json() as object;
      const csv = (await harness.owner('GET', `/campaigns/${id}/results.csv`)).body.split('\n').filter((line) => !line.startsWith('note,'));
      return { variants, byLanguage, bestHour, recipients, delivered, shown, clicked, revenue, conversions, page, csv };
    };
    const before = await Promise.all([ab, languages, bestHour].map(figures));
    // what the figures hold: per variant, per language, per browser, the held-out group, over time
    expect(before[0]!.variants.map((variant) => variant.recipients)).toEqual([2, 2]);
    expect(before[0]!.variants.reduce((sum, variant) => sum + variant.clicked, 0)).toBe(2);
    expect(before[0]!.variants.flatMap((variant) => variant.revenue)).toEqual([
      { currency: 'EUR', amount: 12.5 },
      { currency: 'USD', amount: 30 },
    ]);
    expect(before[0]!.csv[0]).toMatch(/,revenue EUR,revenue USD\r$/);
    for (const figures of before) {
      expect(figures.revenue).toEqual([
        { currency: 'EUR', amount: 12.5 },
        { currency: 'USD', amount: 30 },
      ]);
      expect(figures.conversions).toBe(2);
    }
    expect(before[1]!.byLanguage).toEqual(
      expect.arrayContaining([
        { language: 'de', recipients: 2, delivered: 2, clicked: 1 },
        { language: 'fr', recipients: 1, delivered: 1, clicked: 0 },
      ]),
    );
    expect(before[1]!.page).toMatchObject({
      byBrowser: expect.arrayContaining([{ key: 'chrome', recipients: 2, sent: 2, delivered: 2, shown: 2, clicked: 2 }]),
    });
    expect(before[2]!.bestHour).toMatchObject({ bestHour: { recipients: 2, delivered: 2 }, holdout: { recipients: 2, delivered: 2 } });
    const timeline = (before[2]!.page as { timeline: { delivered: number; clicked: number }[] }).timeline;
    expect(timeline.reduce((sum, point) => sum + point.delivered, 0)).toBe(4);
    expect(timeline.reduce((sum, point) => sum + point.clicked, 0)).toBe(2);

    expect((await harness.owner('DELETE', `/subscribers/${gone!.id}`)).statusCode).toBe(200);
    expect(await Promise.all([ab, languages, bestHour].map(figures))).toEqual(before);
    // done, but within their TTL a report still counts: the rows stay, and a late click counts for its variant
    await pruneDeliveries(harness.db, 0);
    expect((await harness.db.query('SELECT 1 FROM deliveries WHERE campaign_id = $1', [ab])).rows).toHaveLength(3);
    expect((await report(pushOf('/stay/1', ab), 'clicked')).statusCode).toBe(200);
    before[0] = await figures(ab);
    expect(before[0].variants.reduce((sum, variant) => sum + variant.clicked, 0)).toBe(3);
    // past it, the rows go, the late clicker's variant kept with them
    await harness.db.query(`UPDATE campaigns SET completed_at = completed_at - interval '29 days' WHERE id = ANY($1::bigint[])`, [
      [ab, languages, bestHour],
    ]);
    // the overview's notifications per day (a day of UTC and of Kathmandu, UTC+5:45) keep their figures too
    const overview = () => notificationDays(harness);
    const days = await overview();
    const sum = (figure: keyof Omit<NotificationDay, 'date'>) => days[0]!.reduce((total, day) => total + day[figure], 0);
    for (const figure of ['delivered', 'shown', 'clicked', 'conversions'] as const) expect(sum(figure), figure).toBeGreaterThan(0);
    expect(await pruneDeliveries(harness.db, 0)).toBeGreaterThan(0);
    expect(await Promise.all([ab, languages, bestHour].map(figures))).toEqual(before);
    expect(await overview()).toEqual(days);
    // the event retention (180 days) takes the click events: each campaign's revenue and conversions stay, per variant too
    await harness.db.query(`UPDATE events SET created_at = created_at - interval '181 days' WHERE campaign_id = ANY($1::bigint[])`, [
      [ab, languages, bestHour],
    ]);
    await harness.db.query(`UPDATE shop_orders SET created_at = created_at - interval '181 days' WHERE order_id LIKE 'stay-%'`);
    const aged = await overview();
    expect(await pruneEvents(harness.db, 180)).toBeGreaterThan(0);
    const clicks = await pruneCampaignClicks(harness.db, 180, LETTERS_WINDOW);
    expect(await Promise.all([ab, languages, bestHour].map(figures))).toEqual(before);
    expect(await overview()).toEqual(aged);
    expect(clicks).toBe(4); // the first subscriber's of each campaign and the late one (the deleted one's went with them)
    // what needs a row per subscriber says the rows are gone, not "nobody"
    const { campaign } = (await harness.owner('GET', `/campaigns/${ab}`)).json() as { campaign: Campaign };
    expect(campaign.prunedAfterDays).toBe(0);
    expect((await harness.owner('GET', `/campaigns/${ab}/results.csv`)).body).toContain('note,details pruned after 0 days');
    const resent = await harness.owner('POST', `/campaigns/${ab}/resend`);
    expect(resent.statusCode).toBe(409);
    expect(resent.json()).toMatchObject({ message: expect.stringContaining('details pruned after 0 days') });
  });

  it('finishes creating a campaign a stopped provider left half-written, and sends it', async () => {
    await harness.db.query(`UPDATE subscribers SET status = 'unsubscribed'`);
    for (let index = 0; index < 5; index += 1) await harness.subscribe({ path: `/resume/${index}` });
    const query = harness.db.query.bind(harness.db);
    process.env.PUSHKIT_CREATION_CHUNK = '2';
    // the provider dies after the first chunk: the next statement writing rows never comes back
    harness.db.query = ((sql: string, params?: unknown[]) =>
      /^\s*WITH inserted AS[\s\S]*ON CONFLICT/.test(sql)
        ? Promise.reject(new Error('provider stopped'))
        : query(sql, params)) as typeof harness.db.query;
    try {
      const created = await harness.owner('POST', '/campaigns', { title: 'Resumed', body: 'Half written' });
      expect(created.statusCode).toBe(500);
    } finally {
      harness.db.query = query;
    }
    const { rows } = await harness.db.query<{ id: string }>(`SELECT id FROM campaigns WHERE creating AND title = 'Resumed'`);
    expect(rows).toHaveLength(1);
    try {
      await harness.stop();
      await harness.start();
      await harness.campaigns.idle();
    } finally {
      delete process.env.PUSHKIT_CREATION_CHUNK;
    }
    const { campaign } = (await harness.owner('GET', `/campaigns/${rows[0]!.id}`)).json() as { campaign: Campaign };
    expect(campaign).toMatchObject({ recipients: 5, delivered: 5, status: 'done' });
    for (let index = 0; index < 5; index += 1) expect(harness.received(`/resume/${index}`)).toBe(1);
  });
});

describe.skipIf(!postgresUrl)('a report after pruning, on PostgreSQL', () => {
  it('keeps each failure reason and each variant’s revenue once when two providers prune at once (rows, then clicks)', async () => {
    const database = await createThrowawayDatabase(postgresUrl!, 'pushkit_pruned');
    const pg = await startProviderHarness({ database: database.url, service: harness.service, vapid: harness.vapid, rateLimit: false });
    try {
      const paths = Array.from({ length: 6 }, (_, index) => `/pruned/${index}`);
      const ids: string[] = [];
      for (const path of paths) ids.push((await pg.subscribe({ path })).id);
      harness.service.answer(paths[0]!, { status: 403, body: '{"reason":"BadJwtToken"}' });
      harness.service.answer(paths[1]!, { status: 413, body: '' });
      const created = await pg.owner('POST', '/campaigns', {
        title: 'Pruned',
        body: 'Kept',
        variants: [{ title: 'A' }, { title: 'B' }],
        testFraction: 0.95,
        winnerAfterMinutes: 60,
      });
      expect(created.statusCode, created.body).toBe(201);
      const { campaignId } = created.json() as { campaignId: string };
      await pg.campaigns.idle();
      // the four it reached click, each reporting it three times at once (the worker, the landing page, a retry),
      // and each orders 10 EUR
      for (const [index, path] of paths.entries()) {
        if (index < 2) continue;
        const click = pg.messageOf(pg.deliveries(path).at(-1)!).notification.data!.click;
        const reports = Array.from({ length: 3 }, () =>
          pg.app.inject({
            method: 'POST',
            url: '/notificationEvent',
            headers: { 'content-type': 'text/plain', origin: SITE_ORIGIN },
            payload: JSON.stringify({ hash: SITE_HASH, click, event: 'clicked' }),
          }),
        );
        for (const reported of await Promise.all(reports)) expect(reported.statusCode).toBe(200);
        const order = { total: 10, currency: 'EUR', items: [{ pId: 1, pName: 'Ink', pPrice: 10, pQuant: 1 }] };
        const placed = await pg.owner('POST', '/api/v1/shopify/orders', {
          hash: SITE_HASH,
          orderId: `pruned-${index}`,
          subscriberId: ids[index],
          order,
        });
        expect(placed.statusCode, placed.body).toBe(201);
      }
      pg.clock.advance(2 * 3_600_000); // the winner's time: the campaign is done
      await pg.campaigns.tick();
      await pg.campaigns.idle();
      const report = async () => {
        const { campaign } = (await pg.owner('GET', `/campaigns/${campaignId}`)).json() as { campaign: Campaign };
        const csv = (await pg.owner('GET', `/campaigns/${campaignId}/results.csv`)).body
          .split('\n')
          .filter((line) => !line.startsWith('note,'));
        const { failed, failures, clicked, revenue, conversions } = campaign;
        return { failed, failures, clicked, revenue, conversions, variants: campaign.variants.map((variant) => variant.revenue), csv };
      };
      const before = await report();
      // a click counted once however many reports raced in
      expect(before.clicked).toBe(4);
      const stored = await pg.db.query(`SELECT 1 FROM events WHERE campaign_id = $1 AND kind = 'clicked'`, [campaignId]);
      expect(stored.rows).toHaveLength(4);
      expect(before.failures.map(({ status, count }) => [status, count])).toEqual([
        [403, 1],
        [413, 1],
      ]);
      expect(before.variants.flat().reduce((sum, revenue) => sum + revenue.amount, 0)).toBe(40);
      // the daily prune of two providers on one database at the same time, two rows a statement, past the TTL
      await pg.db.query(`UPDATE campaigns SET completed_at = completed_at - interval '29 days' WHERE id = $1`, [campaignId]);
      const days = await notificationDays(pg);
      const pruned = await Promise.all([pruneDeliveries(pg.db, 0, 2), pruneDeliveries(pg.db, 0, 2)]);
      expect(pruned[0] + pruned[1]).toBe(6);
      expect(await report()).toEqual(before);
      expect(await notificationDays(pg)).toEqual(days);
      // and their click events after the event retention: the revenue is kept once, per variant too
      await pg.db.query(`UPDATE events SET created_at = created_at - interval '181 days' WHERE campaign_id = $1`, [campaignId]);
      await pg.db.query(`UPDATE shop_orders SET created_at = created_at - interval '181 days' WHERE order_id LIKE 'pruned-%'`);
      const aged = await notificationDays(pg);
      expect(aged[0]!.reduce((sum, day) => sum + day.conversions, 0)).toBe(4);
      const clicks = await Promise.all([
        pruneCampaignClicks(pg.db, 180, LETTERS_WINDOW, 1),
        pruneCampaignClicks(pg.db, 180, LETTERS_WINDOW, 1),
      ]);
      expect(await report()).toEqual(before);
      expect(await notificationDays(pg)).toEqual(aged);
      expect(before.revenue).toEqual([{ currency: 'EUR', amount: 40 }]);
      expect(clicks[0] + clicks[1]).toBe(4);
    } finally {
      await pg.close();
      await database.drop();
    }
  }, 60_000);

  it('counts an order once when two providers prune its two clicks at the same moment', async () => {
    const throwaway = await openThrowawayPostgres(postgresUrl!, 'pushkit_click_race');
    const other = await openDatabase({ url: throwaway.url, dataDir: '/nonexistent' });
    // provider A's transaction, held open by the test after its prune's statements ran
    const client = new pg.Client({ connectionString: throwaway.url });
    await client.connect();
    const held: Database = {
      kind: 'postgres',
      query: async <T>(sql: string, params?: unknown[]) => ({ rows: (await client.query(sql, params)).rows as T[] }),
      transaction: (fn) => fn(held),
      close: async () => undefined,
    };
    try {
      const { db } = throwaway;
      await db.query(`INSERT INTO subscribers (id, site_hash, status) VALUES ('race', $1, 'subscribed')`, [SITE_HASH]);
      const { rows } = await db.query<{ id: string }>(
        `INSERT INTO campaigns (site_hash, title, body, ttl, urgency, status) SELECT $1, 'Race', 'Two clicks', 60, 'normal', 'done'
           FROM generate_series(1, 2) RETURNING id`,
        [SITE_HASH],
      );
      // one subscriber clicked two campaigns 27 hours and 1 hour before one order, 199 days ago: a conversion of both
      await db.query(
        `INSERT INTO events (site_hash, subscriber_id, campaign_id, kind, created_at)
         VALUES ($1, 'race', $2, 'clicked', now() - interval '200 days 2 hours'), ($1, 'race', $3, 'clicked', now() - interval '199 days')`,
        [SITE_HASH, rows[0]!.id, rows[1]!.id],
      );
      await db.query(
        `INSERT INTO shop_orders (site_hash, order_id, details, subscriber_id, created_at)
         VALUES ($1, 'race-1', '{"total": 10, "currency": "EUR"}', 'race', now() - interval '199 days' + interval '1 hour')`,
        [SITE_HASH],
      );
      // A (a 200-day retention) takes the older click; B (199 days) starts on both before A commits
      await client.query('BEGIN');
      expect(await pruneCampaignClicks(held, 200, LETTERS_WINDOW)).toBe(1);
      const pruningB = pruneCampaignClicks(other, 199, LETTERS_WINDOW);
      const waiting = `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      while ((await db.query(waiting)).rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      await client.query('COMMIT');
      expect(await pruningB).toBe(1);
      const kept = await db.query<{ clicked: string; conversions: string }>(
        'SELECT sum(clicked) AS clicked, sum(conversions) AS conversions FROM notification_days_kept WHERE site_hash = $1',
        [SITE_HASH],
      );
      // the overview's conversion is kept once (each campaign keeps the order as its own conversion)
      expect(kept.rows[0]).toEqual({ clicked: '2', conversions: '1' });
      const revenue = await db.query('SELECT campaign_id, conversions FROM campaign_revenue_kept ORDER BY campaign_id');
      expect(revenue.rows.map((row) => Number(row.conversions))).toEqual([1, 1]);
    } finally {
      await client.end();
      await other.close();
      await throwaway.cleanup();
    }
  });
});
