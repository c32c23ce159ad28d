// Audiences (issue 31, finding 4): server-side segments whose rules read what the provider stores, checked and
// counted as the owner types, and usable at once by a campaign. One provider per database (PGlite, and
// PostgreSQL when PUSHKIT_TEST_DATABASE_URL is set); the rule is compiled to parameterised SQL, so text in a
// rule that looks like SQL matches nothing and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/database.ts';
import { compileAudienceRule } from '../../server/audiences/audience-sql.ts';
import { automationSettings } from '../../server/automations/automation-settings.ts';
import { scheduleWelcome } from '../../server/automations/automation-messages.ts';
import { scheduleWinBacks } from '../../server/automations/shop-messages.ts';
import type { AudienceCheckReply, AudiencesReply } from '../../contract/audiences.ts';
import { startProviderHarness, type ProviderHarness } from '../support/provider-harness.ts';
import { openTempDatabase } from '../support/server.ts';
import { openThrowawayPostgres } from '../support/throwaway-postgres.ts';

const url = process.env.PUSHKIT_TEST_DATABASE_URL;
const backends: { label: string; open: () => Promise<{ db: Database; cleanup: () => Promise<void> }> }[] = [
  { label: 'PGlite', open: openTempDatabase },
  ...(url ? [{ label: 'PostgreSQL', open: () => openThrowawayPostgres(url) }] : []),
];

describe('an audience rule compiled to SQL', () => {
  it('puts no text of the rule into the SQL, only placeholders', () => {
    const rule = compileAudienceRule(`tag.plan == "x' OR 1=1 --" or language startsWith "de"`);
    expect(rule.ok).toBe(true);
    if (!rule.ok) return;
    expect(rule.sql).not.toContain("x'");
    expect(rule.sql).not.toContain('plan');
    expect(rule.params).toEqual(['plan', "x' OR 1=1 --", 'de']);
    // a country compared with a literal is read by that country's zones, with no lookup table in the query
    const country = compileAudienceRule('country == "DE"');
    expect(country.ok && country.params).toEqual([['Europe/Berlin', 'Europe/Busingen']]);
  });

  it('refuses what the browser-side language has and stored data has not, with the column', () => {
    const refused = (source: string) => {
      const rule = compileAudienceRule(source);
      return rule.ok ? null : { code: rule.error.code, message: rule.error.message, column: rule.error.column };
    };
    expect(refused('url contains "/pricing"')).toEqual({
      code: 'E_CONDITION_UNKNOWN_VARIABLE',
      message: 'unknown variable "url"',
      column: 1,
    });
    expect(refused('language matches "^de"')?.code).toBe('E_CONDITION_NOT_IN_AUDIENCE');
    expect(refused('clicked.latest')).toEqual({
      code: 'E_CONDITION_CAMPAIGN_NUMBER',
      message: '"clicked" needs a campaign number, as in clicked.12',
      column: 1,
    });
    expect(refused('automation.nope')?.message).toMatch(/^no automation "nope"; automations are welcome, /);
    expect(refused('tag == "pro"')?.code).toBe('E_CONDITION_NAME_REQUIRED');
  });
});

describe.each(backends)('audiences on $label', ({ open }) => {
  let harness: ProviderHarness;
  let cleanup: () => Promise<void>;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const opened = await open();
    cleanup = opened.cleanup;
    harness = await startProviderHarness({ via: 'createApp', service: false, db: opened.db });
    const db = harness.db;
    const people: [string, Record<string, string>][] = [
      ['anna', { userLanguage: 'de-DE', userTimezone: 'Europe/Berlin', browserType: 'chrome' }],
      ['bert', { userLanguage: 'de-AT', userTimezone: 'Europe/Vienna', browserType: 'firefox' }],
      ['chloe', { userLanguage: 'fr-FR', userTimezone: 'Europe/Paris', browserType: 'chrome' }],
      ['dan', { userLanguage: 'en-US', userTimezone: 'America/New_York', browserType: 'edge' }],
      ['eve', { userLanguage: 'de-DE', userTimezone: 'Europe/Berlin', browserType: 'chrome' }],
      ['finn', { userLanguage: 'en-GB', userTimezone: 'Asia/Calcutta', browserType: 'chrome' }],
    ];
    for (const [name, fields] of people) ids[name] = (await harness.subscribe({ fields })).id;
    // eve unsubscribed: a member of "German speakers", not reachable
    await db.query(`UPDATE subscribers SET status = 'unsubscribed', endpoint = NULL WHERE id = $1`, [ids.eve]);
    for (const [name, plan] of [
      ['anna', 'pro'],
      ['chloe', 'pro'],
      ['dan', 'free'],
      ['eve', 'pro'],
    ] as const) {
      await db.query('INSERT INTO subscriber_tags (subscriber_id, key, value) VALUES ($1, $2, $3)', [ids[name], 'plan', plan]);
    }
    await db.query('INSERT INTO subscriber_tags (subscriber_id, key, value) VALUES ($1, $2, $3)', [ids.anna, 'visits', '12']);
    // bert subscribed 40 days ago and was last seen 35 days ago; the others are new and seen today
    await db.query(
      `UPDATE subscribers SET created_at = now() - interval '40 days', last_sync_at = now() - interval '35 days' WHERE id = $1`,
      [ids.bert],
    );
  });
  afterAll(async () => {
    await harness?.close();
    await cleanup?.();
  });

  const check = async (condition: string) => {
    const reply = await harness.owner('POST', '/audiences/check', { condition });
    expect(reply.statusCode, reply.body).toBe(200);
    return reply.json<AudienceCheckReply>();
  };
  const counted = async (condition: string) => {
    const reply = await check(condition);
    if (!reply.ok) throw new Error(`${condition}: ${reply.error.message}`);
    return [reply.members, reply.reachable];
  };

  it('reads language, browser, time zone, country, tags, subscribed date and last seen', async () => {
    expect(await counted('language == "de-DE"')).toEqual([2, 1]);
    expect(await counted('language startsWith "de"')).toEqual([3, 2]);
    expect(await counted('browser == "chrome" and not (language startsWith "de")')).toEqual([2, 2]);
    expect(await counted('timeZone == "Europe/Paris"')).toEqual([1, 1]);
    expect(await counted('country == "DE" or country == "AT"')).toEqual([3, 2]);
    expect(await counted('country == "IN"')).toEqual([1, 1]);
    expect(await counted('country != "DE"')).toEqual([4, 4]);
    expect(await counted('"AT" == country')).toEqual([1, 1]);
    expect(await counted('country startsWith "D"')).toEqual([2, 1]);
    expect(await counted('tag.plan == "pro"')).toEqual([3, 2]);
    expect(await counted('tag.plan != "pro"')).toEqual([3, 3]);
    expect(await counted('tag.visits > 10')).toEqual([1, 1]);
    expect(await counted('subscribedDaysAgo <= 7')).toEqual([5, 4]);
    expect(await counted('lastSeenDaysAgo >= 30')).toEqual([1, 1]);
  });

  it('reads clicks, deliveries and automated messages', async () => {
    const created = await harness.owner('POST', '/campaigns', { title: 'Sale', body: 'Today', sendAt: '2099-01-01T00:00:00Z' });
    expect(created.statusCode, created.body).toBe(201);
    const campaignId = created.json<{ campaignId: string }>().campaignId;
    await harness.db.query(`UPDATE deliveries SET status = 'delivered' WHERE campaign_id = $1 AND subscriber_id = ANY($2)`, [
      campaignId,
      [ids.anna, ids.chloe],
    ]);
    await harness.db.query(`INSERT INTO events (site_hash, subscriber_id, campaign_id, kind) VALUES ($1, $2, $3, 'clicked')`, [
      harness.site.hash,
      ids.anna,
      campaignId,
    ]);
    expect(await counted(`clicked.${campaignId}`)).toEqual([1, 1]);
    expect(await counted(`delivered.${campaignId} and not clicked.${campaignId}`)).toEqual([1, 1]);
    expect(await counted('automation.welcome')).toEqual([0, 0]);
  });

  it('answers a refused rule with its error and column, and lists the variables', async () => {
    expect(await check('language == "de" and')).toEqual({
      ok: false,
      error: { code: 'E_CONDITION_EXPECTED_VALUE', message: 'expected a value after "and"', column: 21 },
    });
    const listed = await harness.owner('GET', '/audiences');
    expect(listed.json<AudiencesReply>().variables.map((variable) => variable.name)).toEqual(
      expect.arrayContaining(['language', 'country', 'tag.', 'subscribedDaysAgo', 'lastSeenDaysAgo', 'clicked.', 'automation.']),
    );
  });

  it('is usable at once: stored, listed with its counts, counted and sent to by a campaign', async () => {
    const created = await harness.owner('POST', '/audiences', { id: 'pro-plan', name: 'Plan pro', condition: 'tag.plan == "pro"' });
    expect(created.statusCode, created.body).toBe(201);
    const listed = (await harness.owner('GET', '/audiences')).json<AudiencesReply>();
    expect(listed.audiences).toEqual([expect.objectContaining({ id: 'pro-plan', name: 'Plan pro', members: 3, reachable: 2 })]);
    const estimate = await harness.owner('GET', '/audience?audience=pro-plan');
    expect(estimate.json()).toEqual({ status: 'success', recipients: 2 });

    const campaign = await harness.owner('POST', '/campaigns', { title: 'Pro news', body: 'For you', audience: 'pro-plan' });
    expect(campaign.statusCode, campaign.body).toBe(201);
    const { campaignId, recipients } = campaign.json<{ campaignId: string; recipients: number }>();
    expect(recipients).toBe(2);
    const { rows } = await harness.db.query<{ subscriber_id: string }>(
      'SELECT subscriber_id FROM deliveries WHERE campaign_id = $1 ORDER BY subscriber_id',
      [campaignId],
    );
    expect(rows.map((row) => row.subscriber_id)).toEqual([ids.anna, ids.chloe].sort());
    expect((await harness.owner('GET', `/campaigns/${campaignId}`)).json().campaign).toMatchObject({ audience: 'pro-plan', segment: null });

    const unknown = await harness.owner('POST', '/campaigns', { title: 'x', body: 'y', audience: 'nobody' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe(`audience: no audience nobody on site ${harness.site.name}`);
    const both = await harness.owner('POST', '/campaigns', { title: 'x', body: 'y', audience: 'pro-plan', segment: 'news' });
    expect(both.statusCode).toBe(400);
    const refused = await harness.owner('POST', '/audiences', { id: 'bad', condition: 'url == "/"' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('condition: unknown variable "url" at column 1');
  });

  it('treats SQL in a rule or an id as text: it matches nothing and changes nothing', async () => {
    const attacks = [
      `tag.plan == "pro' OR '1'='1"`,
      `language == "x\\"; DROP TABLE subscribers; --"`,
      `tag.plan == "\\u0027) OR TRUE OR (\\u0027"`,
      `timeZone contains "' || (SELECT string_agg(id, ',') FROM subscribers) || '"`,
      `country == "DE' OR 'a'='a"`,
    ];
    for (const attack of attacks) expect(await counted(attack), attack).toEqual([0, 0]);
    // a tag name that is SQL, and an audience id that is
    await harness.db.query('INSERT INTO subscriber_tags (subscriber_id, key, value) VALUES ($1, $2, $3)', [ids.dan, "x'--", 'y']);
    expect((await check(`tag.x'-- == "y"`)).ok).toBe(false);
    const id = await harness.owner('GET', `/audience?audience=${encodeURIComponent("x' OR 1=1 --")}`);
    expect(id.statusCode).toBe(400);
    const { rows } = await harness.db.query<{ count: string }>('SELECT count(*) AS count FROM subscribers');
    expect(Number(rows[0]!.count)).toBe(6);
  });

  it('limits an automation to an audience: only its subscribers get the messages', async () => {
    const changed = await harness.owner('PATCH', '/automations/welcome', { enabled: true, audience: 'pro-plan' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().automation.audience).toBe('pro-plan');
    const unknown = await harness.owner('PATCH', '/automations/welcome', { audience: 'nobody' });
    expect(unknown.json().message).toBe(`audience: no audience nobody on site ${harness.site.name}`);

    const settings = await automationSettings(harness.db, harness.site);
    expect(await scheduleWelcome(harness.db, harness.site, ids.anna!, settings.welcome, Date.now())).toBe(true);
    expect(await scheduleWelcome(harness.db, harness.site, ids.dan!, settings.welcome, Date.now())).toBe(false);

    // bert, away for 35 days, is no pro: a win-back limited to pro-plan leaves him out, one for everyone does not
    await harness.owner('PATCH', '/automations/winBack', { enabled: true, days: 30, audience: 'pro-plan' });
    const limited = await automationSettings(harness.db, harness.site);
    expect(await scheduleWinBacks(harness.db, harness.site, limited.winBack, Date.now())).toBe(0);
    await harness.owner('PATCH', '/automations/winBack', { audience: null });
    const everyone = await automationSettings(harness.db, harness.site);
    expect(await scheduleWinBacks(harness.db, harness.site, everyone.winBack, Date.now())).toBe(1);
  });
});
