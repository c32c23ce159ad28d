// The `push-kit` program. Each command's module loads only when that command runs, so `--help` stays
// instant and Ink/React load only for `init`.
import { createRequire } from 'node:module';
import { Argument, Command, CommanderError, Option } from 'commander';
import { CliError, EXIT } from './errors.ts';

/** The installed package's version (the package names itself: package.json is among its exports). */
const VERSION = (createRequire(import.meta.url)('push-kit/package.json') as { version: string }).version;

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const setExit = (code: number) => {
    exitCode = Math.max(exitCode, code);
  };
  const program = new Command('push-kit')
    .description('Web push for websites: validate and build site bundles, run the provider, send notifications.')
    .version(VERSION, '-V, --version', 'print the version of push-kit')
    .option('--debug', "print an error's stack trace")
    .exitOverride()
    .showHelpAfterError();

  program
    .command('init')
    .description('Interactive wizard that writes a site config and its VAPID key pair')
    .option('--yes', 'take every default, ask nothing')
    .option('--answers <file>', 'read the answers from a JSON file')
    .option('--dir <dir>', 'project folder to write into', '.')
    .option('--force', 'overwrite an existing config without asking')
    .action(async (options) => setExit(await (await import('./commands/init.ts')).runInit(options)));

  program
    .command('validate')
    .description('Check site configs as build and serve do, each and together; prints FILE: field.path: message per problem')
    .argument('<configs...>', 'site config files')
    .option('--strict', 'warnings fail too (exit 1), for CI')
    .action(async (configs: string[], options: { strict?: boolean }) =>
      setExit(await (await import('./commands/validate.ts')).runValidate(configs, options)),
    );

  program
    .command('build')
    .description('Build each site config into <out>/<name>/')
    .argument('<configs...>', 'site config files')
    .option('--out <dir>', 'output folder', 'dist')
    .option('--json', 'print a JSON summary (per site: files, sizes, warnings, errors) for CI')
    .action(async (configs: string[], options: { out: string; json?: boolean }) =>
      setExit(await (await import('./commands/build.ts')).runBuild(configs, options)),
    );

  program
    .command('serve')
    .description('Run the provider server (embedded database unless --database or DATABASE_URL is given)')
    .option('--port <n>', 'port to listen on', '8787')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--database <url>', 'postgres://... (default: embedded database in .push-kit/db)')
    .option('--sites <glob...>', 'site configs to host', ['site-configs/*.json'])
    .option('--dist <dir>', 'folder of built sites', 'dist')
    .option(
      '--trust-proxy <value>',
      'proxies that name the client (X-Forwarded-For): true, or proxy addresses/CIDRs (also PUSHKIT_TRUST_PROXY)',
    )
    .option(
      '--push-services <origins>',
      'comma-separated push service origins to allow instead of the known ones (also PUSHKIT_PUSH_SERVICES)',
    )
    .option(
      '--event-retention-days <days>',
      'days events are kept, pruned at start and daily (default 180; also PUSHKIT_EVENT_RETENTION_DAYS)',
    )
    .option('--workers <n>', 'provider processes sharing the port (default 1; more than one needs PostgreSQL)')
    .option('--request-timeout-ms <ms>', 'time a client has to send a whole request, body included (default 30000; 0: none)')
    .option('--connection-timeout-ms <ms>', 'time a connection may stay silent (default 60000; 0: none)')
    .option(
      '--max-connections-per-address <n>',
      'connections one client address (IPv6: its /64) may hold open; trusted proxies are exempt (default 64; 0: no cap)',
    )
    .option('--allow-http-webhooks', 'webhooks may go to http:// on this machine (127.0.0.1, [::1], localhost); else https only')
    .option(
      '--webhook-private-origins <origins>',
      'comma-separated webhook origins that may resolve to private addresses (also PUSHKIT_WEBHOOK_PRIVATE_ORIGINS)',
    )
    .option(
      '--allow-feed-hosts <hosts>',
      'comma-separated feed hosts (name or name:port) that may be http and private addresses (also PUSHKIT_ALLOW_FEED_HOSTS)',
    )
    .action(async (options) => setExit(await (await import('./commands/serve.ts')).runServe(options)));

  program
    .command('send')
    .description("Send a notification to a site's subscribers")
    .requiredOption('--site <name>', 'site name (config base name)')
    .requiredOption('--title <title>', 'notification title')
    .requiredOption('--body <body>', 'notification body')
    .option('--url <url>', 'page opened on click')
    .option('--segment <segment>', 'only this segment')
    .option('--audience <id>', 'only the subscribers this audience (server-side segment) matches now')
    .option('--at <time>', 'send at this time (ISO 8601 with offset, e.g. 2026-12-01T09:00:00Z); push-kit serve sends it')
    .option('--local-time <HH:MM>', "send when each subscriber's own clock shows this time (from --at, or now)")
    .option('--app-badge <n>', "the number the site's app badge shows")
    .option(
      '--texts <file>',
      'texts per language: a JSON file such as {"de": {"title": "...", "body": "..."}}; each subscriber gets the best match of their language',
    )
    .option(
      '--variant <json>',
      'an A/B test variant, e.g. \'{"title":"B"}\' (title, body, url, icon, image); give 2 to 4',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--test-fraction <share>', 'A/B test: the share of the audience the variants go to, e.g. 0.2')
    .option('--winner-after <minutes>', 'A/B test: minutes until the best click rate goes to the rest')
    .option('--throttle-per-minute <n>', "deliveries per minute at most (default: the site's campaigns.throttlePerMinute, else no limit)")
    .option('--deliver-at <when>', 'best-hour: each subscriber at the hour of day they click most, within 24 h')
    .option('--best-hour-holdout <share>', 'with --deliver-at best-hour: the share sent at once to compare against (default 0.1)')
    .option('--topic <topic>', 'Topic header: a newer message of the topic replaces an undelivered older one')
    .option('--ttl <seconds>', 'seconds the push service keeps the message for an offline browser (default 86400)')
    .option('--database <url>', 'postgres://... (default: embedded database in .push-kit/db)')
    .option('--key <key>', "the site's owner API key: a provider sends (also PUSHKIT_OWNER_KEY); not needed for one running here")
    .option(
      '--provider <url>',
      "the provider's URL (default: the one running on .push-kit/db, found by itself; with --key, else the site's serverSyncUrl)",
    )
    .option(
      '--push-services <origins>',
      'comma-separated push service origins to allow instead of the known ones (also PUSHKIT_PUSH_SERVICES)',
    )
    .action(async (options) => setExit(await (await import('./commands/send.ts')).runSend(options)));

  program
    .command('campaigns')
    .description(
      "List a site's campaigns with their figures; `campaigns show <id>` one with why deliveries failed; `campaigns cancel <id>` cancels a scheduled or sending one",
    )
    .addArgument(
      new Argument('[action]', 'show: one campaign and its failures by reason; cancel: withdraw what of a campaign has not gone').choices([
        'show',
        'cancel',
      ]),
    )
    .argument('[id]', 'the campaign to show or cancel')
    .requiredOption('--site <name>', 'site name (config base name)')
    .option('--limit <n>', 'campaigns listed, newest first (default 20, at most 100)')
    .option('--database <url>', 'postgres://... (default: embedded database in .push-kit/db)')
    .option('--key <key>', "the site's owner API key: ask a provider (also PUSHKIT_OWNER_KEY); not needed for one running here")
    .option(
      '--provider <url>',
      "the provider's URL (default: the one running on .push-kit/db, found by itself; with --key, else the site's serverSyncUrl)",
    )
    .option('--sites <glob...>', 'site configs', ['site-configs/*.json'])
    .action(async (action: string | undefined, id: string | undefined, options) =>
      setExit(await (await import('./commands/campaigns.ts')).runCampaigns(action, id, options)),
    );

  program
    .command('webhooks')
    .description("A site's webhook endpoints: list, add URL --events, remove, enable, disable, rotate-secret, log, replay")
    .addArgument(
      new Argument('[action]', 'what to do (default list)').choices([
        'list',
        'add',
        'remove',
        'enable',
        'disable',
        'rotate-secret',
        'log',
        'replay',
      ]),
    )
    .argument('[target]', 'add: the endpoint URL; the others: the endpoint id')
    .argument('[message]', 'replay: the event id (msg_...) the log shows')
    .requiredOption('--site <name>', 'site name (config base name)')
    .option('--events <names>', 'add: the events it takes, comma-separated, or all (docs/webhooks.md)')
    .option('--description <text>', 'add: a note shown beside it')
    .option('--overlap-hours <n>', 'rotate-secret: hours the old secret keeps signing beside the new one (default 24; 0: none)')
    .option('--limit <n>', 'log: entries shown (default 20)')
    .option('--allow-http-webhooks', 'add (on the database): allow http:// to this machine, as the provider flag does')
    .option('--webhook-private-origins <origins>', 'add (on the database): origins that may resolve to private addresses')
    .option('--database <url>', 'postgres://... (default: embedded database in .push-kit/db)')
    .option('--key <key>', "the site's owner API key: ask a provider (also PUSHKIT_OWNER_KEY); not needed for one running here")
    .option(
      '--provider <url>',
      "the provider's URL (default: the one running on .push-kit/db, found by itself; with --key, else the site's serverSyncUrl)",
    )
    .option('--sites <glob...>', 'site configs', ['site-configs/*.json'])
    .action(async (action: string | undefined, target: string | undefined, message: string | undefined, options) =>
      setExit(await (await import('./commands/webhooks.ts')).runWebhooks(action, target, message, options)),
    );

  program
    .command('members')
    .description("A site's team: list, add --name --role [--link], role ID --role, remove ID, key ID (docs/members.md)")
    .addArgument(new Argument('[action]', 'what to do (default list)').choices(['list', 'add', 'role', 'remove', 'key']))
    .argument('[id]', 'role, remove, key: the member id')
    .requiredOption('--site <name>', 'site name (config base name)')
    .option('--name <name>', "add: the member's name, shown in the dashboard and the audit log")
    .option('--role <role>', 'add, role: owner, editor or viewer')
    .option('--link', 'add: print a one-time sign-in link for the dashboard instead of a key')
    .option('--database <url>', 'postgres://... (default: embedded database in .push-kit/db)')
    .option('--key <key>', "an owner's key: ask the running provider (also PUSHKIT_OWNER_KEY)")
    .option('--provider <url>', "provider URL for --key (default: the running one, else the site's serverSyncUrl)")
    .option('--sites <glob...>', 'site configs', ['site-configs/*.json'])
    .action(async (action: string | undefined, id: string | undefined, options) =>
      setExit(await (await import('./commands/members.ts')).runMembers(action, id, options)),
    );

  const keys = program
    .command('keys')
    .description('Say whether a site has an owner API key; `keys rotate` prints a new one once and the old one stops working')
    .addArgument(new Argument('[action]', 'rotate: replace the key').choices(['rotate']))
    // required, but checked here: `keys vapid --site S` gives it to the subcommand
    .option('--site <name>', 'site name (config base name)')
    .option('--database <url>', 'postgres://... (default: embedded database in .push-kit/db)')
    .option('--sites <glob...>', 'site configs', ['site-configs/*.json'])
    .action(async (action: string | undefined, options, command: Command) => {
      if (!options.site) command.error("error: required option '--site <name>' not specified");
      setExit(await (await import('./commands/keys.ts')).runKeys(action, options));
    });
  keys
    .command('vapid')
    .description("List the site's VAPID key ring with the subscribers on each key; rotate it; retire a legacy key")
    .addArgument(new Argument('[action]', 'rotate: a new current key; retire: remove a legacy key').choices(['rotate', 'retire']))
    .argument('[key]', 'retire: the id of the legacy key')
    .option('--site <name>', 'site name (config base name)')
    .option('--database <url>', 'postgres://... (default: embedded database in .push-kit/db)')
    .option('--sites <glob...>', 'site configs', ['site-configs/*.json'])
    .action(async (action: string | undefined, key: string | undefined, _options, command: Command) =>
      setExit(await (await import('./commands/keys-vapid.ts')).runKeysVapid(action, key, command.optsWithGlobals())),
    );

  program
    .command('import')
    .description("Import another service's subscribers into a site (CSV, NDJSON or OneSignal's export); bad rows are listed by line")
    .argument('<file>', 'the file of subscriptions (docs/migrating.md)')
    .requiredOption('--site <name>', 'site name (config base name)')
    .addOption(
      new Option('--format <format>', 'the file format (auto: from its first line)')
        .choices(['auto', 'csv', 'ndjson', 'onesignal'])
        .default('auto'),
    )
    .option(
      '--vapid-key <file>',
      'the previous service\'s VAPID key pair {"publicKey","privateKey"}: it joins the site\'s key ring and signs the imported subscriptions',
    )
    .option('--dry-run', 'check every row and print the counts and the first problems; write nothing')
    .option('--database <url>', 'postgres://... (default: embedded database in .push-kit/db)')
    .option('--key <key>', "the site's owner API key: a provider imports (also PUSHKIT_OWNER_KEY); not needed for one running here")
    .option(
      '--provider <url>',
      "the provider's URL (default: the one running on .push-kit/db, found by itself; with --key, else the site's serverSyncUrl)",
    )
    .option('--sites <glob...>', 'site configs', ['site-configs/*.json'])
    .option(
      '--push-services <origins>',
      'comma-separated push service origins to allow instead of the known ones (also PUSHKIT_PUSH_SERVICES)',
    )
    .action(async (file: string, options) => setExit(await (await import('./commands/import.ts')).runImport(file, options)));

  program
    .command('doctor')
    .description('Check deployed sites and their provider (pages, push.js, sw.js, manifest, CORS, VAPID keys, clocks); prints each fix')
    .argument('[configs...]', 'site config files (default: site-configs/*.json)')
    .option('--json', 'print { checks: [{ id, site, status, message, fix }] } for CI (docs/ci.md)')
    .option('--strict', 'warnings fail too (exit 1)')
    .option('--dist <dir>', 'the push-kit build output the served files should match', 'dist')
    .option('--timeout-ms <ms>', 'milliseconds each network call may take (default 10000)')
    .action(async (configs: string[], options) => setExit(await (await import('./commands/doctor.ts')).runDoctor(configs, options)));

  program
    .command('dev')
    .description('Run a site on this machine: its config with local URLs, built, the provider and a page that embeds it')
    .argument('[config]', "site config (any: its URLs are rewritten to the local ports; default: the project's one in site-configs/)")
    .option('--port <n>', 'provider port (default 8787, or a free one when taken)')
    .option('--site-port <n>', 'site page port (default 8080, or a free one when taken)')
    .option('--examples <dir>', 'folder of pages to serve (default: the example site for its config, else a local page)')
    .action(async (config: string | undefined, options) => setExit(await (await import('./commands/dev.ts')).runDev(config, options)));

  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has printed its message and the usage
      return error.exitCode === 0 || error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : EXIT.USAGE;
    }
    const debug = program.opts<{ debug?: boolean }>().debug === true;
    if (error instanceof CliError) {
      console.error(`push-kit: ${error.message}`);
      if (debug) console.error(error.stack);
      return error.exitCode;
    }
    console.error(`push-kit: unexpected error (a bug in push-kit; please report it with this output):`);
    console.error(error instanceof Error ? error.stack : error);
    return EXIT.INTERNAL;
  }
  return exitCode;
}
