// `push-kit send --site NAME --title T --body B [--url U] [--segment S]`: creates a campaign for the site's
// subscribers (or one segment's) and sends it from this process (server/campaigns/send-campaign.ts), with a progress bar
// and the final counts. While a provider holds the embedded database, that provider sends it (cli/provider-route.ts).
// The sender and the sites' configs load only for the send that needs them: a refused option or a send through a
// provider does without (a quarter of a second of start-up less).
import { readFileSync } from 'node:fs';
import { cliError, fromServerError } from '../errors.ts';
import type { SendCampaignOptions } from '../../server/campaigns/index.ts';
import { campaignInputSchema, type CampaignInput, type CampaignRequest } from '../../contract/campaign-input.ts';
import type { CampaignCreatedReply, CampaignReply } from '../../contract/owner-api.ts';
import { ownerApiClient } from '../owner-api-client.ts';
import { failureLines } from '../failure-lines.ts';
import { databaseInUseAdvice, routeOf, type Route } from '../provider-route.ts';

/** The command's options: those of the library's sendCampaign, plus sending through a running provider. */
export interface SendOptions extends Pick<
  SendCampaignOptions,
  'site' | 'title' | 'body' | 'url' | 'segment' | 'audience' | 'database' | 'sites' | 'dist'
> {
  /** Send through a running provider's owner API with this key (or PUSHKIT_OWNER_KEY) instead of the database. */
  key?: string;
  /** The provider's URL (default: the one running on .push-kit/db; with a key, else the site's serverSyncUrl). */
  provider?: string;
  /** Comma-separated push service origins (default: PUSHKIT_PUSH_SERVICES, else the known push services). */
  pushServices?: string;
  /** `--at`: send at this time (ISO 8601 with its offset). */
  at?: string;
  /** `--local-time`: send at this time of day on each subscriber's own clock. */
  localTime?: string;
  /** `--app-badge`: the number the site's app badge shows. */
  appBadge?: string;
  /** `--topic`: the Topic header. */
  topic?: string;
  /** `--ttl`: seconds the push service keeps the message. */
  ttl?: string;
  /** `--texts`: a JSON file of texts per language tag, {"de": {"title": "...", "body": "..."}}. */
  texts?: string;
  /** `--variant`, repeated: an A/B test's variants as JSON. */
  variant?: string[];
  /** `--test-fraction`: the share of the audience the variants go to. */
  testFraction?: string;
  /** `--winner-after`: minutes until the winner goes to the rest. */
  winnerAfter?: string;
  /** `--throttle-per-minute`: deliveries per minute at most. */
  throttlePerMinute?: string;
  /** `--deliver-at best-hour`: each subscriber at the hour they click most. */
  deliverAt?: string;
  /** `--best-hour-holdout`: the share sent at once to compare against. */
  bestHourHoldout?: string;
}

/** A number option as typed; anything but digits becomes NaN, which the schema refuses naming the option. */
const numberOption = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : /^\d+$/.test(value) ? Number(value) : Number.NaN;

/** The command's option for a field of the campaign input, where the names differ. */
const OPTION_OF: Record<string, string> = {
  sendAt: 'at',
  localTime: 'local-time',
  appBadge: 'app-badge',
  variants: 'variant',
  testFraction: 'test-fraction',
  winnerAfterMinutes: 'winner-after',
  throttlePerMinute: 'throttle-per-minute',
  deliverAt: 'deliver-at',
  bestHourHoldout: 'best-hour-holdout',
};

function variantsOf(values: string[] | undefined): NonNullable<CampaignRequest['variants']> | undefined {
  if (!values?.length) return undefined;
  return values.map((value) => {
    try {
      return JSON.parse(value) as NonNullable<CampaignRequest['variants']>[number];
    } catch {
      throw cliError('E_ARGUMENT', { option: 'variant', rule: `must be JSON such as {"title":"Another title"}, not ${value}` });
    }
  });
}

/** The texts per language of the `--texts` file (the schema checks them). */
function textsOf(file: string | undefined): CampaignRequest['texts'] {
  if (file === undefined) return undefined;
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    throw cliError('E_ARGUMENT', {
      option: 'texts',
      rule: `must name a readable JSON file (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}: ${file})`,
    });
  }
  try {
    return JSON.parse(source) as CampaignRequest['texts'];
  } catch (error) {
    throw cliError('E_ARGUMENT', {
      option: 'texts',
      rule: `must be a JSON file such as {"de": {"title": "...", "body": "..."}}; ${file}: ${(error as Error).message}`,
    });
  }
}

/** The campaign the options ask for, checked by the owner API's own schema (limits, TTL and urgency defaults). */
function campaignOf(options: SendOptions): CampaignInput {
  const request: CampaignRequest = {
    title: options.title.trim(),
    body: options.body.trim(),
    url: options.url,
    texts: textsOf(options.texts),
    segment: options.segment,
    audience: options.audience,
    sendAt: options.at,
    localTime: options.localTime,
    appBadge: numberOption(options.appBadge),
    topic: options.topic,
    ttl: numberOption(options.ttl),
    variants: variantsOf(options.variant),
    testFraction: options.testFraction === undefined ? undefined : Number(options.testFraction),
    winnerAfterMinutes: numberOption(options.winnerAfter),
    throttlePerMinute: numberOption(options.throttlePerMinute),
    deliverAt: options.deliverAt as CampaignRequest['deliverAt'],
    bestHourHoldout: options.bestHourHoldout === undefined ? undefined : Number(options.bestHourHoldout),
  };
  const result = campaignInputSchema.safeParse(request);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const [field, ...rest] = issue.path.map(String);
  const option = OPTION_OF[field!] ? [OPTION_OF[field!], ...rest].join('.') : issue.path.join('.');
  throw cliError('E_ARGUMENT', { option, rule: issue.message });
}

/** The campaign is created by the running provider, which sends it; this polls its progress. */
async function sendThroughProvider(campaign: CampaignRequest, siteName: string, provider: string, key: string): Promise<number> {
  const call = ownerApiClient(provider, siteName, key);
  const created = await call<CampaignCreatedReply>('/campaigns', { method: 'POST', body: campaign });
  const { recipients } = created;
  console.log(
    `campaign ${created.campaignId}: ${recipients} recipient${recipients === 1 ? '' : 's'} (sent by the provider at ${provider})`,
  );
  if (campaign.sendAt !== undefined || campaign.localTime !== undefined) {
    const { campaign: stored } = await call<CampaignReply>(`/campaigns/${created.campaignId}`);
    console.log(scheduledLine(stored?.nextDueAt ?? undefined));
    return 0;
  }
  if (campaign.deliverAt !== undefined) {
    const { campaign: stored } = await call<CampaignReply>(`/campaigns/${created.campaignId}`);
    console.log(bestHourLine(stored?.pending ?? 0, stored?.estimatedFinishAt ?? undefined));
    return 0;
  }
  if (campaign.variants !== undefined) {
    const { campaign: stored } = await call<CampaignReply>(`/campaigns/${created.campaignId}`);
    console.log(`A/B test: the provider sends the variants now and the best click rate to the rest at ${stored?.winnerAt ?? '?'}`);
    return 0;
  }
  const tty = process.stdout.isTTY === true;
  for (;;) {
    const { campaign: progress } = await call<CampaignReply>(`/campaigns/${created.campaignId}`);
    if (!progress) throw cliError('E_PROVIDER_REPLY');
    if (tty) process.stdout.write(`\r${progressBar(progress.recipients - progress.pending, progress.recipients)}`);
    if (progress.status === 'done' || progress.pending === 0) {
      if (tty) process.stdout.write('\n');
      console.log(
        `sent to ${progress.recipients}: ${progress.delivered} delivered, ${progress.expired} expired, ${progress.failed} failed` +
          (progress.capped ? `, ${progress.capped} capped` : '') +
          (progress.dropped ? `, ${progress.dropped} dropped in quiet hours` : ''),
      );
      for (const line of failureLines(progress.failures ?? [])) console.log(line);
      return progress.failed > 0 ? 1 : 0;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function bestHourLine(pending: number, last: string | undefined): string {
  return `best hour: the held-out share goes now, the other ${pending} at their best hour${last ? ` by ${last}` : ''} (sent by push-kit serve)`;
}

function scheduledLine(first: string | undefined): string {
  return first
    ? `scheduled: the provider (push-kit serve) sends it from ${first}; push-kit campaigns cancel <id> --site <site> cancels it`
    : 'scheduled, with nobody to send to';
}

function progressBar(done: number, total: number, width = 30): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`;
}

export async function runSend(options: SendOptions): Promise<number> {
  const campaign = campaignOf(options);
  let route: Route | undefined;
  try {
    route = await routeOf(options.site, options, async () => {
      const { siteNamed } = await import('../../server/sites.ts');
      return (await siteNamed(options.site, options.sites, options.dist)).config.serverSyncUrl;
    });
    if (route.via === 'provider') return await sendThroughProvider(campaign, options.site, route.url, route.key);
    const { sendCampaign } = await import('../../server/campaigns/index.ts');
    const tty = process.stdout.isTTY === true;
    let recipients = 0;
    let last = 0;
    const final = await sendCampaign({
      ...options,
      ...campaign,
      sendAt: campaign.sendAt,
      localTime: campaign.localTime,
      appBadge: campaign.appBadge,
      topic: campaign.topic,
      ttl: campaign.ttl,
      texts: campaign.texts,
      variants: campaign.variants,
      testFraction: campaign.testFraction,
      winnerAfterMinutes: campaign.winnerAfterMinutes,
      throttlePerMinute: campaign.throttlePerMinute,
      deliverAt: campaign.deliverAt,
      bestHourHoldout: campaign.bestHourHoldout,
      onCreated: (campaign) => {
        recipients = campaign.recipients;
        console.log(`campaign ${campaign.campaignId}: ${recipients} recipient${recipients === 1 ? '' : 's'}`);
      },
      onProgress: (counts) => {
        const done = counts.delivered + counts.failed + counts.expired;
        if (tty && Date.now() - last > 100) {
          last = Date.now();
          process.stdout.write(`\r${progressBar(done, recipients)}`);
        }
      },
    });
    if (campaign.sendAt !== undefined || campaign.localTime !== undefined) {
      console.log(scheduledLine(final.scheduledFor));
      return 0;
    }
    if (tty) process.stdout.write(`\r${progressBar(final.recipients - final.pending, final.recipients)}\n`);
    if (final.scheduledFor && campaign.deliverAt !== undefined) {
      console.log(bestHourLine(final.pending, final.finishesBy));
    } else if (final.scheduledFor) {
      console.log(`A/B test: the best click rate goes to the other ${final.pending} at ${final.scheduledFor} (sent by push-kit serve)`);
    }
    console.log(
      `sent to ${final.recipients}: ${final.delivered} delivered, ${final.expired} expired, ${final.failed} failed` +
        (final.capped ? `, ${final.capped} capped` : '') +
        (final.dropped ? `, ${final.dropped} dropped in quiet hours` : '') +
        (final.pending && !final.scheduledFor ? `, ${final.pending} still pending (retried by the next send or serve)` : ''),
    );
    for (const line of failureLines(final.failures)) console.log(line);
    return final.failed > 0 ? 1 : 0;
  } catch (error) {
    fromServerError(error, route && { databaseInUse: databaseInUseAdvice(route, `push-kit send --site ${options.site} ...`) });
  }
}
