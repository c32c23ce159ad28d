// The schema, as ordered versions. A version is applied once, in one transaction, and recorded in
// schema_migrations; never edit a shipped version, add a new one.
export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'subscribers, segments, events, owner keys, orders, campaigns, deliveries',
    statements: [
      `CREATE TABLE subscribers (
        id text PRIMARY KEY,
        site_hash text NOT NULL,
        uuid text,
        status text NOT NULL CHECK (status IN ('subscribed', 'unsubscribed', 'blocked', 'expired')),
        subscription jsonb,
        subscription_id text,
        endpoint text,
        p256dh text,
        auth text,
        browser_type text,
        language text,
        timezone text,
        timezone_offset integer,
        page_click_tracking_permission smallint,
        origin text,
        subscription_page_url text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        last_sync_at timestamptz
      )`,
      `CREATE UNIQUE INDEX subscribers_site_endpoint ON subscribers (site_hash, endpoint) WHERE endpoint IS NOT NULL`,
      `CREATE INDEX subscribers_site_subscription_id ON subscribers (site_hash, subscription_id)`,
      `CREATE INDEX subscribers_site_uuid ON subscribers (site_hash, uuid)`,
      `CREATE INDEX subscribers_site_status ON subscribers (site_hash, status, created_at)`,
      `CREATE TABLE subscriber_tags (
        subscriber_id text NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
        key text NOT NULL,
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (subscriber_id, key)
      )`,
      `CREATE TABLE subscriber_dimensions (
        subscriber_id text NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
        name text NOT NULL,
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (subscriber_id, name)
      )`,
      `CREATE TABLE segments (
        id bigserial PRIMARY KEY,
        site_hash text NOT NULL,
        sid text NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (site_hash, sid)
      )`,
      `CREATE TABLE segment_memberships (
        segment_id bigint NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
        subscriber_id text NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
        source text NOT NULL,
        custom_tag text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (segment_id, subscriber_id)
      )`,
      `CREATE INDEX segment_memberships_subscriber ON segment_memberships (subscriber_id)`,
      `CREATE TABLE events (
        id bigserial PRIMARY KEY,
        site_hash text NOT NULL,
        subscriber_id text REFERENCES subscribers (id) ON DELETE CASCADE,
        campaign_id bigint,
        kind text NOT NULL,
        detail jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX events_campaign ON events (campaign_id, kind)`,
      `CREATE INDEX events_subscriber ON events (subscriber_id)`,
      `CREATE TABLE owner_keys (
        site_hash text PRIMARY KEY,
        key_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE TABLE shop_orders (
        site_hash text NOT NULL,
        order_id text NOT NULL,
        details jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (site_hash, order_id)
      )`,
      `CREATE TABLE campaigns (
        id bigserial PRIMARY KEY,
        site_hash text NOT NULL,
        title text NOT NULL,
        body text NOT NULL,
        url text,
        icon text,
        segment_sid text,
        subscriber_id text,
        ttl integer NOT NULL,
        urgency text NOT NULL CHECK (urgency IN ('very-low', 'low', 'normal', 'high')),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'done')),
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      )`,
      `CREATE INDEX campaigns_site ON campaigns (site_hash, created_at)`,
      `CREATE TABLE deliveries (
        id bigserial PRIMARY KEY,
        campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        subscriber_id text NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'expired')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_error text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (campaign_id, subscriber_id)
      )`,
      `CREATE INDEX deliveries_pending ON deliveries (campaign_id, next_attempt_at) WHERE status = 'pending'`,
      `CREATE INDEX deliveries_subscriber ON deliveries (subscriber_id)`,
    ],
  },
  {
    version: 2,
    name: 'delivery claims that outlive their transaction',
    statements: [
      // A runner claims a delivery by stamping claimed_at; a claim older than the lease belongs to a runner
      // that died, and may be taken again.
      `ALTER TABLE deliveries ADD COLUMN claimed_at timestamptz`,
    ],
  },
  {
    version: 3,
    name: 'owner dashboard: newest-first subscriber pages, segment conditions, campaign image and action buttons',
    statements: [
      // Pages of the subscriber list walk this index instead of sorting every row of a large site.
      `CREATE INDEX subscribers_site_created ON subscribers (site_hash, created_at, id)`,
      `ALTER TABLE segments ADD COLUMN condition text`,
      `ALTER TABLE campaigns ADD COLUMN image text`,
      `ALTER TABLE campaigns ADD COLUMN actions jsonb`,
    ],
  },
  {
    version: 4,
    name: 'the subscribers a campaign reaches, by index',
    statements: [
      // The audience of a campaign (active, with an endpoint), counted for the dashboard's confirmation and
      // read when the campaign's deliveries are created: joined with a segment's members without reading
      // the whole table, even when most of the site is active.
      `CREATE INDEX subscribers_site_sendable ON subscribers (site_hash, id) WHERE status = 'subscribed' AND endpoint IS NOT NULL`,
    ],
  },
  {
    version: 5,
    name: 'proof of the subscriber browser: per-subscriber secrets, order readers',
    statements: [
      // SHA-256 of the secret issued to the subscriber's browser (hex); NULL for a subscriber stored before
      // secrets existed, which gets one on its next sync that proves its push subscription.
      `ALTER TABLE subscribers ADD COLUMN secret_hash text`,
      // The one subscriber who may read the order: named by the shop, or the first proven reader.
      `ALTER TABLE shop_orders ADD COLUMN subscriber_id text`,
    ],
  },
  {
    version: 6,
    name: 'bounded growth: who created a segment, events pruned by age',
    statements: [
      // Visitors' browsers may create only a few segments per site (server/visitors/visitor-segments.ts); the
      // ones stored before this version are counted as the owner's.
      `ALTER TABLE segments ADD COLUMN created_by text NOT NULL DEFAULT 'owner'`,
      // Event retention (server/db/event-retention.ts) deletes the oldest rows in batches by this index.
      `CREATE INDEX events_created ON events (created_at, id)`,
    ],
  },
  {
    version: 7,
    name: 'automations: owner changes, automated messages as one-subscriber campaigns, expiry events',
    statements: [
      // The fields of an automation the owner changed through the owner API; the site config gives the rest.
      `CREATE TABLE automation_settings (
        site_hash text NOT NULL,
        kind text NOT NULL,
        changes jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (site_hash, kind)
      )`,
      // An automated message is a campaign to one subscriber (automation names its kind) with one delivery,
      // due at its next_attempt_at: the sender, the claims and the notification reports are the campaigns'.
      `ALTER TABLE campaigns ADD COLUMN automation text`,
      `ALTER TABLE campaigns ADD COLUMN topic text`,
      `ALTER TABLE campaigns ADD COLUMN tag text`,
      // One welcome per subscriber, whatever the number of inserts and processes.
      `CREATE UNIQUE INDEX campaigns_welcome_once ON campaigns (site_hash, subscriber_id) WHERE automation = 'welcome'`,
      `CREATE INDEX campaigns_automation ON campaigns (site_hash, automation, subscriber_id) WHERE automation IS NOT NULL`,
      // The owner's campaign list reads only the owner's campaigns.
      `CREATE INDEX campaigns_site_owner ON campaigns (site_hash, id) WHERE automation IS NULL`,
      // Due automated messages, found without reading the ones sent.
      `CREATE INDEX campaigns_automation_pending ON campaigns (site_hash, automation) WHERE automation IS NOT NULL AND status <> 'done'`,
      // Expiries (a push service's 404/410) per day; orders by subscriber (conversions, cart reminders).
      `CREATE INDEX events_site_kind ON events (site_hash, kind, created_at)`,
      `CREATE INDEX shop_orders_subscriber ON shop_orders (site_hash, subscriber_id, created_at)`,
    ],
  },
  {
    version: 8,
    name: 'declarative push messages: the app badge a campaign sets',
    statements: [`ALTER TABLE campaigns ADD COLUMN app_badge integer`],
  },
  {
    version: 9,
    name: 'scheduled campaigns: a send time, a subscriber-local time, cancelling',
    statements: [
      // A scheduled campaign's deliveries are written at once with next_attempt_at at each one's due time, so
      // the schedule lives in the database and survives a restart; the provider sends what has come due.
      `ALTER TABLE campaigns ADD COLUMN send_at timestamptz`,
      `ALTER TABLE campaigns ADD COLUMN local_time text`,
      `ALTER TABLE campaigns DROP CONSTRAINT campaigns_status_check`,
      `ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check CHECK (status IN ('pending', 'scheduled', 'sending', 'done', 'cancelled'))`,
      // The provider's scheduler looks for campaigns with a delivery come due across all campaigns.
      `CREATE INDEX deliveries_pending_due ON deliveries (next_attempt_at) WHERE status = 'pending'`,
    ],
  },
  {
    version: 10,
    name: 'campaign guardrails: capped and dropped deliveries, a campaign topic',
    statements: [
      // capped: the subscriber had the most notifications the site allows; dropped: quiet hours outlasted the TTL.
      `ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check`,
      `ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed', 'expired', 'capped', 'dropped'))`,
      // A frequency cap counts each subscriber's recent deliveries.
      `CREATE INDEX deliveries_subscriber_delivered ON deliveries (subscriber_id, updated_at) WHERE status = 'delivered'`,
      // campaigns.topic came with migration 7 (automations); campaigns set it too.
    ],
  },
  {
    version: 11,
    name: 'A/B tests: campaign variants, the variant of each delivery, the winner',
    statements: [
      `CREATE TABLE campaign_variants (
        campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        variant smallint NOT NULL,
        title text,
        body text,
        url text,
        icon text,
        image text,
        PRIMARY KEY (campaign_id, variant)
      )`,
      // The variant a test delivery carries; NULL for the rest of the audience, which gets the winner.
      `ALTER TABLE deliveries ADD COLUMN variant smallint`,
      `ALTER TABLE campaigns ADD COLUMN winner_at timestamptz`,
      `ALTER TABLE campaigns ADD COLUMN winner_variant smallint`,
    ],
  },
  {
    version: 12,
    name: "a campaign's claims read their batch in index order",
    statements: [
      // A claim takes the campaign's next due deliveries by (due time, id): with the id in the index a claim
      // reads its batch, where (campaign, due time) alone made every claim sort all the campaign's pending rows.
      `CREATE INDEX deliveries_pending_order ON deliveries (campaign_id, next_attempt_at, id) WHERE status = 'pending'`,
      `DROP INDEX deliveries_pending`,
    ],
  },
  {
    version: 13,
    name: "an order's one-time read token",
    statements: [
      // The shop hands the buyer's order page a token the provider issued with the order; only its SHA-256 is
      // kept, and it is cleared by the one read it allows (server/shop/order-reads.ts).
      `ALTER TABLE shop_orders ADD COLUMN read_token_hash text`,
    ],
  },
  {
    version: 14,
    name: 'who created a segment from a visitor call',
    statements: [
      // Visitor-created segments are capped per subscriber and per address before the site-wide bound
      // (server/visitors/visitor-segments.ts), so one caller cannot use up every visitor's room.
      `ALTER TABLE segments ADD COLUMN creator_subscriber text`,
      `ALTER TABLE segments ADD COLUMN creator_address text`,
    ],
  },
  {
    version: 15,
    name: 'a campaign waits while its site key cannot sign',
    statements: [
      `ALTER TABLE campaigns DROP CONSTRAINT campaigns_status_check`,
      `ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check CHECK (status IN ('pending', 'scheduled', 'sending', 'done', 'cancelled', 'waiting_for_key'))`,
    ],
  },
  {
    version: 16,
    name: 'a VAPID key ring per site: the key each subscription was made with',
    statements: [
      // The id (server/keys/key-ring.ts vapidKeyId: a short hash of the public key) of the key pair on the site's
      // ring that signs this subscription's pushes. NULL (rows stored before this version) is the site's current
      // key: a migration cannot read the key files, and a rotation writes the old key's id into these rows
      // before it makes a new key current (server/keys/rotate-key.ts).
      `ALTER TABLE subscribers ADD COLUMN vapid_key_id text`,
      // The ring's listing counts subscribers per key; a retire counts one key's.
      `CREATE INDEX subscribers_site_vapid_key ON subscribers (site_hash, vapid_key_id) WHERE status = 'subscribed'`,
    ],
  },
  {
    version: 17,
    name: 'webhooks: endpoints per site, a queue of signed events, the delivery log',
    statements: [
      // An owner's endpoint (server/webhooks/): the events it takes and its signing secret, kept as is since every
      // request is signed with it (Standard Webhooks: whsec_ and base64). A rotation keeps the old one signing
      // beside the new one until previous_secret_expires_at.
      `CREATE TABLE webhook_endpoints (
        id bigserial PRIMARY KEY,
        site_hash text NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL,
        description text,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        disabled_at timestamptz,
        disabled_reason text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX webhook_endpoints_site ON webhook_endpoints (site_hash, id)`,
      // One event for one endpoint, its body as sent (text: the signed bytes never change between attempts).
      // Claimed like deliveries (claimed_at, a lease); order_key (the subscriber) holds an event back while an
      // earlier one of that subscriber to that endpoint is pending; dedupe_key makes an emission idempotent. As
      // few indexes as the queue needs: a campaign writes one row per delivery (bench/webhook-overhead.ts).
      `CREATE TABLE webhook_messages (
        id bigserial PRIMARY KEY,
        endpoint_id bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        message_id text NOT NULL DEFAULT ('msg_' || replace(gen_random_uuid()::text, '-', '')),
        event_type text NOT NULL,
        payload text NOT NULL,
        order_key text,
        dedupe_key text,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX webhook_messages_due ON webhook_messages (next_attempt_at, id) WHERE status = 'pending'`,
      `CREATE INDEX webhook_messages_order ON webhook_messages (endpoint_id, order_key, created_at, id) WHERE status = 'pending'`,
      `CREATE UNIQUE INDEX webhook_messages_once ON webhook_messages (endpoint_id, dedupe_key) WHERE dedupe_key IS NOT NULL`,
      `CREATE INDEX webhook_messages_endpoint ON webhook_messages (endpoint_id, id)`,
      // The delivery log: every attempt, its answer's status, latency and first bytes (at most 256).
      `CREATE TABLE webhook_attempts (
        id bigserial PRIMARY KEY,
        endpoint_id bigint NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        message_id bigint NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
        attempted_at timestamptz NOT NULL DEFAULT now(),
        status_code integer,
        outcome text NOT NULL CHECK (outcome IN ('delivered', 'retrying', 'failed')),
        latency_ms integer NOT NULL,
        response text NOT NULL
      )`,
      `CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id)`,
      `CREATE INDEX webhook_attempts_message ON webhook_attempts (message_id)`,
      // A campaign's delivery results, one row per written batch (its delivery ids), turned into events for the
      // endpoints later by the dispatcher: the campaign's hot path writes one small row, not one per delivery.
      `CREATE TABLE webhook_outbox (
        id bigserial PRIMARY KEY,
        deliveries bigint[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
    ],
  },
  {
    version: 18,
    name: "an imported subscriber's id at the service it came from",
    statements: [
      // `external_id` of an import file (OneSignal's external_user_id): the owner's own id of the person, kept so
      // the owner can find the subscriber again (the owner API's search reads it).
      `ALTER TABLE subscribers ADD COLUMN external_id text`,
    ],
  },
  {
    version: 19,
    name: 'delivery diagnostics: the push service status and host of a failed or expired delivery',
    statements: [
      // With last_error (now the reason: the push service's reason or a network error's class, at most 256 bytes,
      // never a secret: server/push/push-failure.ts) and attempts, why a delivery failed; NULL status: no answer.
      `ALTER TABLE deliveries ADD COLUMN status_code integer`,
      `ALTER TABLE deliveries ADD COLUMN failure_host text`,
      // A campaign's failures grouped by reason read only its failed and expired deliveries.
      `CREATE INDEX deliveries_failures ON deliveries (campaign_id) WHERE status IN ('failed', 'expired')`,
    ],
  },
  {
    version: 20,
    name: 'a team per site: members with roles and their keys, the audit log',
    statements: [
      // A member of a site's team (server/members/): a role, and the SHA-256 of their own key (NULL until the
      // one-time sign-in link they were given is used; only the link's hash is kept, until then).
      `CREATE TABLE site_members (
        site_hash text NOT NULL,
        id text NOT NULL,
        name text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
        key_hash text,
        link_hash text,
        link_expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (site_hash, id)
      )`,
      `CREATE UNIQUE INDEX site_members_key ON site_members (site_hash, key_hash) WHERE key_hash IS NOT NULL`,
      `CREATE UNIQUE INDEX site_members_link ON site_members (link_hash) WHERE link_hash IS NOT NULL`,
      // The site's owner key of before becomes its first owner member, "Owner": that key keeps opening everything.
      `INSERT INTO site_members (site_hash, id, name, role, key_hash, created_at)
        SELECT site_hash, 'owner', 'Owner', 'owner', key_hash, created_at FROM owner_keys`,
      // Every change and send through the owner API: who (the member, or the provider token), what, when.
      `CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        site_hash text NOT NULL,
        member_id text,
        member_name text NOT NULL,
        action text NOT NULL,
        target text,
        at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX audit_log_site ON audit_log (site_hash, id)`,
    ],
  },
  {
    version: 21,
    name: "texts per language: a campaign's and an A/B variant's",
    statements: [
      // {"de": {"title", "body"}, ...} beside the default title and body (contract/languages.ts): each subscriber
      // gets the best match of their stored language. An automated message's campaign carries its automation's.
      `ALTER TABLE campaigns ADD COLUMN texts jsonb`,
      `ALTER TABLE campaign_variants ADD COLUMN texts jsonb`,
    ],
  },
  {
    version: 22,
    name: "a site's RSS/Atom feeds and the items each has seen",
    statements: [
      // A feed the provider polls (server/feeds/): its URL, audience, interval and mode; the validators of its last
      // answer (a conditional GET next time); when it was polled and why it last failed (shown to the owner);
      // primed once its first poll has recorded the items it already had (they are never sent).
      `CREATE TABLE feeds (
        site_hash text NOT NULL,
        id bigserial NOT NULL,
        url text NOT NULL,
        segment text,
        interval_minutes integer NOT NULL,
        mode text NOT NULL CHECK (mode IN ('each', 'digest')),
        etag text,
        last_modified text,
        primed boolean NOT NULL DEFAULT false,
        next_poll_at timestamptz NOT NULL,
        last_polled_at timestamptz,
        last_success_at timestamptz,
        last_error text,
        last_error_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (site_hash, id)
      )`,
      `CREATE INDEX feeds_due ON feeds (next_poll_at)`,
      // Every item a feed has shown, by its guid/id (else link): an item is sent at most once, ever.
      `CREATE TABLE feed_items (
        site_hash text NOT NULL,
        feed_id bigint NOT NULL,
        item_key text NOT NULL,
        seen_at timestamptz NOT NULL,
        campaign_id text,
        PRIMARY KEY (site_hash, feed_id, item_key)
      )`,
    ],
  },
  {
    version: 23,
    name: "a campaign's send rate and best-hour delivery",
    statements: [
      // throttle_per_minute: the campaign's send rate (its own, else the site's campaigns.throttlePerMinute when
      // created), NULL for as fast as possible. throttle_next_at: the next free slot of its rate, taken by every
      // claim of every provider on the database under the campaign row's lock, so the rate holds across them.
      `ALTER TABLE campaigns ADD COLUMN throttle_per_minute integer`,
      `ALTER TABLE campaigns ADD COLUMN throttle_next_at timestamptz`,
      // deliver_at 'best-hour': each subscriber at their best hour of day; best_hour_holdout the share sent at once.
      `ALTER TABLE campaigns ADD COLUMN deliver_at text`,
      `ALTER TABLE campaigns ADD COLUMN best_hour_holdout real`,
      // A best-hour campaign's delivery: true in the held-out share sent at once, false at its best hour.
      `ALTER TABLE deliveries ADD COLUMN holdout boolean`,
    ],
  },
  {
    version: 24,
    name: 'feeds listed in a site config',
    statements: [
      // A feed the provider made from the site config's feeds (by URL): the config owns it, not the owner API.
      `ALTER TABLE feeds ADD COLUMN from_config boolean NOT NULL DEFAULT false`,
    ],
  },
  {
    version: 25,
    name: 'shop automations: the product catalogue, product views and carts, one message per product change',
    statements: [
      // The shop's products as its last update gave them (POST sites/:name/products): a lower price or a product
      // back in stock is a change the priceDrop and backInStock automations announce.
      `CREATE TABLE shop_products (
        site_hash text NOT NULL,
        product_id text NOT NULL,
        name text NOT NULL,
        url text,
        image text,
        price numeric NOT NULL,
        currency text NOT NULL,
        in_stock boolean NOT NULL,
        change_count integer NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (site_hash, product_id)
      )`,
      // A subscriber's last view and last add-to-cart of a product, in the provider's clock.
      `CREATE TABLE product_interest (
        site_hash text NOT NULL,
        subscriber_id text NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
        product_id text NOT NULL,
        viewed_at timestamptz,
        carted_at timestamptz,
        PRIMARY KEY (subscriber_id, product_id)
      )`,
      `CREATE INDEX product_interest_product ON product_interest (site_hash, product_id)`,
      // What an automated message is about (a product and its change, "once" for a win-back): a subscriber
      // gets at most one message of an automation per key.
      `ALTER TABLE campaigns ADD COLUMN automation_key text`,
      `CREATE UNIQUE INDEX campaigns_automation_once ON campaigns (site_hash, automation, subscriber_id, automation_key)
        WHERE automation_key IS NOT NULL`,
    ],
  },
  {
    version: 27,
    name: "an A/B test's winner clock from its test share's delivery; a campaign sent again to non-clickers",
    statements: [
      // The winner goes to the rest winner_after_minutes after the test share has been delivered
      // (test_delivered_at, by the sender's clock), not after the campaign was created; winner_note says why a
      // test had no winner (the first variant went to the rest).
      `ALTER TABLE campaigns ADD COLUMN winner_after_minutes integer`,
      `ALTER TABLE campaigns ADD COLUMN test_delivered_at timestamptz`,
      `ALTER TABLE campaigns ADD COLUMN winner_note text CHECK (winner_note IN ('too-few-deliveries', 'too-few-clicks'))`,
      // "Send again to those who did not click": the campaign this one went again from (no foreign key: the
      // new campaign keeps its figures if the first is ever removed).
      `ALTER TABLE campaigns ADD COLUMN resend_of bigint`,
    ],
  },
  {
    version: 28,
    name: 'audiences: server-side segments over stored data',
    statements: [
      // An audience is a rule (server/audiences/audience-sql.ts) over what the provider stores; its members are
      // not stored, a campaign evaluates the rule when it is created.
      `CREATE TABLE audiences (
        site_hash text NOT NULL,
        id text NOT NULL,
        name text NOT NULL,
        condition text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (site_hash, id)
      )`,
      // The audience a campaign was sent to (its id when created; the audience may be deleted since).
      `ALTER TABLE campaigns ADD COLUMN audience_id text`,
    ],
  },
  {
    version: 29,
    name: 'drafts and templates of the compose screen',
    statements: [
      // A message being written (kind draft, deleted once sent) or kept to start others from (template): the
      // compose form's fields as the dashboard typed them (contract/compose.ts), saved as the owner types.
      `CREATE TABLE drafts (
        site_hash text NOT NULL,
        id bigserial NOT NULL,
        kind text NOT NULL CHECK (kind IN ('draft', 'template')),
        name text NOT NULL,
        content jsonb NOT NULL,
        saved_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (site_hash, id)
      )`,
    ],
  },
  {
    version: 30,
    name: "a member's browsers registered for test sends",
    statements: [
      // The dashboard tab's own push subscription (made on the provider's origin with the site's key): a test
      // send goes to it only. Never a subscriber: no campaign, segment or figure reads this table.
      `CREATE TABLE test_devices (
        site_hash text NOT NULL,
        id bigserial NOT NULL,
        member_key text NOT NULL,
        label text NOT NULL,
        endpoint text NOT NULL,
        p256dh text NOT NULL,
        auth text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (site_hash, id),
        UNIQUE (site_hash, endpoint)
      )`,
    ],
  },
  {
    version: 31,
    name: "a campaign's delivery figures kept apart from its delivery rows",
    statements: [
      // Counts of a campaign's deliveries by status, as deltas: statement triggers on deliveries add one row per
      // (campaign, status) a statement changed, so nothing locks a shared counter; server/campaigns/delivery-counts.ts
      // sums them for the figures and folds a campaign's deltas into one row per status. A delivery row that is
      // deleted once it has a result (its subscriber erased, or pruned after the reporting window) leaves its
      // count: past campaigns keep their figures. A pending one deleted (a cancel, an erased subscriber) is not
      // going to be sent, and is taken off.
      `CREATE TABLE delivery_counts (
        campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        status text NOT NULL,
        count bigint NOT NULL
      )`,
      `CREATE INDEX delivery_counts_campaign ON delivery_counts (campaign_id, status)`,
      `CREATE FUNCTION delivery_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO delivery_counts (campaign_id, status, count) SELECT campaign_id, status, count(*) FROM added GROUP BY 1, 2;
         RETURN NULL;
       END $$`,
      `CREATE FUNCTION delivery_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO delivery_counts (campaign_id, status, count)
         SELECT campaign_id, status, sum(delta) FROM (
           SELECT n.campaign_id, n.status, 1 AS delta FROM changed n JOIN previous o ON o.id = n.id WHERE o.status <> n.status
           UNION ALL
           SELECT o.campaign_id, o.status, -1 FROM changed n JOIN previous o ON o.id = n.id WHERE o.status <> n.status
         ) moved GROUP BY 1, 2;
         RETURN NULL;
       END $$`,
      `CREATE FUNCTION delivery_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         -- a campaign deleted with its deliveries takes its counts with it
         INSERT INTO delivery_counts (campaign_id, status, count)
         SELECT g.campaign_id, 'pending', -count(*) FROM removed g
         WHERE g.status = 'pending' AND EXISTS (SELECT 1 FROM campaigns c WHERE c.id = g.campaign_id) GROUP BY 1;
         RETURN NULL;
       END $$`,
      `CREATE TRIGGER deliveries_counted_insert AFTER INSERT ON deliveries REFERENCING NEW TABLE AS added
       FOR EACH STATEMENT EXECUTE FUNCTION delivery_counts_insert()`,
      `CREATE TRIGGER deliveries_counted_update AFTER UPDATE ON deliveries REFERENCING OLD TABLE AS previous NEW TABLE AS changed
       FOR EACH STATEMENT EXECUTE FUNCTION delivery_counts_update()`,
      `CREATE TRIGGER deliveries_counted_delete AFTER DELETE ON deliveries REFERENCING OLD TABLE AS removed
       FOR EACH STATEMENT EXECUTE FUNCTION delivery_counts_delete()`,
      `INSERT INTO delivery_counts (campaign_id, status, count) SELECT campaign_id, status, count(*) FROM deliveries GROUP BY 1, 2`,
    ],
  },
  {
    version: 32,
    name: 'a campaign whose delivery rows are still being written',
    statements: [
      // A campaign to a large audience is written in chunks, each its own transaction
      // (server/campaigns/chunked-creation.ts): until the last is in, the scheduler leaves it alone.
      `ALTER TABLE campaigns ADD COLUMN creating boolean NOT NULL DEFAULT false`,
    ],
  },
  {
    version: 33,
    name: "a campaign's figures by variant, group, language, browser and hour, kept apart from its rows",
    statements: [
      // What the campaign page and its CSV break down (server/campaigns/delivery-breakdown.ts), as deltas like
      // delivery_counts: a delivery's result (a status other than pending) and a subscriber's first report of a
      // kind (shown, clicked, closed), by the delivery's A/B variant and held-out group, the subscriber's stored
      // language and browser, and the hour (UTC) it happened. Written by statement triggers when it happens and
      // never taken off: deleting a subscriber (their rows and events go) or pruning a campaign's delivery rows
      // after the reporting window leaves the figures. Pending deliveries are counted from their rows.
      `CREATE TABLE delivery_breakdown (
        campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        kind text NOT NULL,
        variant smallint,
        holdout boolean,
        language text,
        browser text,
        hour timestamptz NOT NULL,
        count bigint NOT NULL
      )`,
      `CREATE INDEX delivery_breakdown_campaign ON delivery_breakdown (campaign_id)`,
      // A campaign whose delivery rows were pruned, and after how many days (what needs them says so).
      `ALTER TABLE campaigns ADD COLUMN pruned_after_days integer`,
      `CREATE OR REPLACE FUNCTION delivery_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO delivery_counts (campaign_id, status, count) SELECT campaign_id, status, count(*) FROM added GROUP BY 1, 2;
         INSERT INTO delivery_breakdown (campaign_id, kind, variant, holdout, language, browser, hour, count)
         SELECT a.campaign_id, a.status, a.variant, a.holdout, s.language, s.browser_type, to_timestamp(floor(extract(epoch FROM a.updated_at) / 3600) * 3600), count(*)
         FROM added a LEFT JOIN subscribers s ON s.id = a.subscriber_id WHERE a.status <> 'pending' GROUP BY 1, 2, 3, 4, 5, 6, 7;
         RETURN NULL;
       END $$`,
      `CREATE OR REPLACE FUNCTION delivery_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO delivery_counts (campaign_id, status, count)
         SELECT campaign_id, status, sum(delta) FROM (
           SELECT n.campaign_id, n.status, 1 AS delta FROM changed n JOIN previous o ON o.id = n.id WHERE o.status <> n.status
           UNION ALL
           SELECT o.campaign_id, o.status, -1 FROM changed n JOIN previous o ON o.id = n.id WHERE o.status <> n.status
         ) moved GROUP BY 1, 2;
         INSERT INTO delivery_breakdown (campaign_id, kind, variant, holdout, language, browser, hour, count)
         SELECT m.campaign_id, m.status, m.variant, m.holdout, s.language, s.browser_type, m.hour, sum(m.delta) FROM (
           SELECT n.campaign_id, n.subscriber_id, n.status, n.variant, n.holdout, to_timestamp(floor(extract(epoch FROM n.updated_at) / 3600) * 3600) AS hour, 1 AS delta
           FROM changed n JOIN previous o ON o.id = n.id WHERE o.status <> n.status AND n.status <> 'pending'
           UNION ALL
           SELECT o.campaign_id, o.subscriber_id, o.status, o.variant, o.holdout, to_timestamp(floor(extract(epoch FROM o.updated_at) / 3600) * 3600), -1
           FROM changed n JOIN previous o ON o.id = n.id WHERE o.status <> n.status AND o.status <> 'pending'
         ) m LEFT JOIN subscribers s ON s.id = m.subscriber_id GROUP BY 1, 2, 3, 4, 5, 6, 7;
         RETURN NULL;
       END $$`,
      // a subscriber's first report of a kind for a campaign (a report without a subscriber counts each time); a row
      // trigger with a WHEN, so the events that are not reports (a subscribe, a tag) cost the sync endpoint nothing
      `CREATE FUNCTION delivery_breakdown_report() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.subscriber_id IS NOT NULL AND EXISTS (SELECT 1 FROM events o WHERE o.subscriber_id = NEW.subscriber_id
             AND o.campaign_id = NEW.campaign_id AND o.kind = NEW.kind AND o.id < NEW.id) THEN
           RETURN NULL;
         END IF;
         INSERT INTO delivery_breakdown (campaign_id, kind, variant, holdout, language, browser, hour, count)
         SELECT c.id, NEW.kind, d.variant, d.holdout, s.language, s.browser_type, to_timestamp(floor(extract(epoch FROM NEW.created_at) / 3600) * 3600), 1
         FROM campaigns c LEFT JOIN deliveries d ON d.campaign_id = c.id AND d.subscriber_id = NEW.subscriber_id
         LEFT JOIN subscribers s ON s.id = NEW.subscriber_id WHERE c.id = NEW.campaign_id;
         RETURN NULL;
       END $$`,
      `CREATE TRIGGER events_counted_report AFTER INSERT ON events FOR EACH ROW
       WHEN (NEW.campaign_id IS NOT NULL AND NEW.kind IN ('shown', 'clicked', 'closed')) EXECUTE FUNCTION delivery_breakdown_report()`,
      `INSERT INTO delivery_breakdown (campaign_id, kind, variant, holdout, language, browser, hour, count)
       SELECT d.campaign_id, d.status, d.variant, d.holdout, s.language, s.browser_type, to_timestamp(floor(extract(epoch FROM d.updated_at) / 3600) * 3600), count(*)
       FROM deliveries d LEFT JOIN subscribers s ON s.id = d.subscriber_id WHERE d.status <> 'pending' GROUP BY 1, 2, 3, 4, 5, 6, 7`,
      `INSERT INTO delivery_breakdown (campaign_id, kind, variant, holdout, language, browser, hour, count)
       SELECT a.campaign_id, a.kind, d.variant, d.holdout, s.language, s.browser_type, to_timestamp(floor(extract(epoch FROM a.created_at) / 3600) * 3600), count(*)
       FROM (SELECT DISTINCT ON (e.campaign_id, e.kind, coalesce(e.subscriber_id, e.id::text)) e.* FROM events e
             WHERE e.kind IN ('shown', 'clicked', 'closed') AND e.campaign_id IN (SELECT id FROM campaigns)
             ORDER BY e.campaign_id, e.kind, coalesce(e.subscriber_id, e.id::text), e.id) a
       LEFT JOIN deliveries d ON d.campaign_id = a.campaign_id AND d.subscriber_id = a.subscriber_id
       LEFT JOIN subscribers s ON s.id = a.subscriber_id GROUP BY 1, 2, 3, 4, 5, 6, 7`,
    ],
  },
  {
    version: 34,
    name: "a browser's insert or update sync as one statement",
    statements: [
      // The sync endpoint's insert and update (server/sync/subscription-sync.ts storeSubscription), each one round
      // trip to PostgreSQL instead of five: the subscription's advisory lock, the look-up of its subscriber, the
      // proof, the write with its event and subscriber.created/.updated webhook messages, and for an insert the
      // owner's welcome switch. Statements inside a function each take a fresh snapshot, so the look-up after the
      // lock sees a concurrent first insert of the same subscription that committed while this one waited.
      // p_action: 'insert' (also insert-failed) or 'update'. p_secret_hash: SHA-256 (hex) of the secret the request
      // shows; p_new_id, p_new_secret_hash: the id of a new subscriber and the hash of a secret to issue when the
      // reply needs one. A NULL column leaves the stored value. result_code: 'success', 'E_SYNC_NOT_SUBSCRIBED' or
      // 'proof' (no secret or the wrong one); result_issued: the new secret was stored; result_welcome: the
      // owner's stored `enabled` of the welcome automation (after an insert; NULL: never changed).
      `CREATE FUNCTION pushkit_sync(
         p_action text, p_site text, p_lock text, p_subscriber_id text, p_secret_hash text, p_new_id text, p_new_secret_hash text,
         p_endpoint text, p_subscription_id text, p_subscription jsonb, p_p256dh text, p_auth text, p_vapid_key_id text,
         p_browser_type text, p_language text, p_timezone text, p_timezone_offset integer, p_click smallint, p_origin text,
         p_page_url text, p_uuid text
       ) RETURNS TABLE (result_code text, result_id text, result_issued boolean, result_welcome boolean) LANGUAGE plpgsql AS $$
       DECLARE
         found_row record;
         issue boolean := false;
         proven boolean := false;
         keeper text;
       BEGIN
         PERFORM pg_advisory_xact_lock(hashtext(p_lock));
         -- the first found of: an update by id, endpoint, subscription id; an insert by endpoint, subscription id, id
         SELECT f.id, f.endpoint, f.subscription_id, f.secret_hash INTO found_row FROM (
           (SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash, CASE WHEN p_action = 'update' THEN 0 ELSE 2 END AS rank
            FROM subscribers s WHERE s.site_hash = p_site AND s.id = p_subscriber_id)
           UNION ALL
           (SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash, CASE WHEN p_action = 'update' THEN 1 ELSE 0 END
            FROM subscribers s WHERE s.site_hash = p_site AND s.endpoint = p_endpoint LIMIT 1)
           UNION ALL
           (SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash, CASE WHEN p_action = 'update' THEN 2 ELSE 1 END
            FROM subscribers s WHERE s.site_hash = p_site AND s.subscription_id = p_subscription_id ORDER BY s.updated_at DESC LIMIT 1)
         ) f ORDER BY f.rank LIMIT 1;
         IF NOT FOUND THEN
           IF p_action = 'update' THEN
             RETURN QUERY SELECT 'E_SYNC_NOT_SUBSCRIBED'::text, NULL::text, false, NULL::boolean;
             RETURN;
           END IF;
         ELSIF p_secret_hash IS NOT NULL AND found_row.secret_hash = p_secret_hash THEN
           proven := true;
         -- holding the subscription proves an insert, and an update of a subscriber stored before secrets existed
         ELSIF (p_action <> 'update' OR found_row.secret_hash IS NULL)
             AND (found_row.endpoint = p_endpoint OR found_row.subscription_id = p_subscription_id) THEN
           proven := true;
           issue := true;
         END IF;
         IF p_action = 'update' AND NOT proven THEN
           RETURN QUERY SELECT 'proof'::text, NULL::text, false, NULL::boolean;
           RETURN;
         END IF;
         IF proven THEN
           keeper := found_row.id;
           -- an endpoint belongs to one subscriber: another record still holding it has lost it
           IF p_endpoint IS NOT NULL THEN
             UPDATE subscribers SET endpoint = NULL, status = 'expired', updated_at = now()
             WHERE site_hash = p_site AND endpoint = p_endpoint AND id <> keeper;
           END IF;
           WITH updated AS (
             UPDATE subscribers SET
               subscription = coalesce(p_subscription, subscription),
               subscription_id = coalesce(p_subscription_id, subscription_id),
               -- a push subscription keeps the key it was made with for as long as its endpoint
               vapid_key_id = CASE WHEN p_vapid_key_id IS NOT NULL AND endpoint IS DISTINCT FROM p_endpoint THEN p_vapid_key_id ELSE vapid_key_id END,
               endpoint = coalesce(p_endpoint, endpoint),
               p256dh = coalesce(p_p256dh, p256dh),
               auth = coalesce(p_auth, auth),
               browser_type = coalesce(p_browser_type, browser_type),
               language = coalesce(p_language, language),
               timezone = coalesce(p_timezone, timezone),
               timezone_offset = coalesce(p_timezone_offset, timezone_offset),
               page_click_tracking_permission = coalesce(p_click, page_click_tracking_permission),
               origin = coalesce(p_origin, origin),
               subscription_page_url = coalesce(p_page_url, subscription_page_url),
               uuid = coalesce(p_uuid, uuid),
               status = 'subscribed',
               updated_at = now(),
               last_sync_at = now(),
               secret_hash = CASE WHEN issue THEN p_new_secret_hash ELSE secret_hash END
             WHERE id = keeper
             RETURNING *
           )
           INSERT INTO webhook_messages (endpoint_id, event_type, payload, order_key, dedupe_key, created_at)
           SELECT w.id, x.type, jsonb_build_object('type', x.type, 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', x.data)::text,
             x.order_key, x.dedupe_key, now()
           FROM (SELECT s.site_hash, 'subscriber.updated'::text AS type, jsonb_build_object('subscriberId', s.id, 'status', s.status,
                   'browserType', s.browser_type, 'language', s.language, 'timezone', s.timezone, 'origin', s.origin,
                   'createdAt', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS data,
                   s.id AS order_key, NULL::text AS dedupe_key FROM updated s) AS x
           JOIN webhook_endpoints w ON w.site_hash = x.site_hash AND x.type = ANY (w.events) AND w.disabled_at IS NULL
           ON CONFLICT DO NOTHING;
         ELSE
           -- a subscriber id alone never re-keys a subscriber: without its secret or its subscription, this is a new one
           keeper := p_new_id;
           issue := true;
           WITH inserted AS (
             INSERT INTO subscribers (id, site_hash, last_sync_at, secret_hash, status, subscription, subscription_id, endpoint, p256dh,
               auth, vapid_key_id, browser_type, language, timezone, timezone_offset, page_click_tracking_permission, origin,
               subscription_page_url, uuid)
             VALUES (p_new_id, p_site, now(), p_new_secret_hash, 'subscribed', p_subscription, p_subscription_id, p_endpoint, p_p256dh,
               p_auth, p_vapid_key_id, p_browser_type, p_language, p_timezone, p_timezone_offset, p_click, p_origin, p_page_url, p_uuid)
             RETURNING *
           ), subscribed AS (
             INSERT INTO events (site_hash, subscriber_id, kind) SELECT p_site, i.id, 'subscribed' FROM inserted i
           )
           INSERT INTO webhook_messages (endpoint_id, event_type, payload, order_key, dedupe_key, created_at)
           SELECT w.id, x.type, jsonb_build_object('type', x.type, 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', x.data)::text,
             x.order_key, x.dedupe_key, now()
           FROM (SELECT s.site_hash, 'subscriber.created'::text AS type, jsonb_build_object('subscriberId', s.id, 'status', s.status,
                   'browserType', s.browser_type, 'language', s.language, 'timezone', s.timezone, 'origin', s.origin,
                   'createdAt', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS data,
                   s.id AS order_key, NULL::text AS dedupe_key FROM inserted s) AS x
           JOIN webhook_endpoints w ON w.site_hash = x.site_hash AND x.type = ANY (w.events) AND w.disabled_at IS NULL
           ON CONFLICT DO NOTHING;
         END IF;
         RETURN QUERY SELECT 'success'::text, keeper, issue,
           CASE WHEN p_action = 'update' THEN NULL::boolean
             ELSE (SELECT (a.changes->>'enabled')::boolean FROM automation_settings a WHERE a.site_hash = p_site AND a.kind = 'welcome') END;
       END $$`,
    ],
  },
  {
    version: 36,
    name: "a campaign's folded figures written without a scan per result batch",
    statements: [
      // The statement triggers of migrations 31 and 33, cheaper per statement of a send (bench/README.md, issue 34):
      // a claim, a claim's renewal or a reschedule changes no status and now returns at once; a result batch joins
      // its old and new rows once (was four times); its subscribers' language and browser are looked up by id, one
      // index probe per row (the join let the planner hash all of subscribers, ~12 ms per batch at 20,000
      // subscribers and growing with them; and a plan cached from a small first statement joined a bulk update's
      // rows pair by pair: 20,000 rows set in one statement took 119 s on PostgreSQL, 2.1 s now). Same rows written.
      `CREATE OR REPLACE FUNCTION delivery_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO delivery_counts (campaign_id, status, count) SELECT campaign_id, status, count(*) FROM added GROUP BY 1, 2;
         IF EXISTS (SELECT 1 FROM added WHERE status <> 'pending') THEN
           INSERT INTO delivery_breakdown (campaign_id, kind, variant, holdout, language, browser, hour, count)
           SELECT a.campaign_id, a.status, a.variant, a.holdout, s.language, s.browser_type, to_timestamp(floor(extract(epoch FROM a.updated_at) / 3600) * 3600), count(*)
           FROM added a LEFT JOIN LATERAL (SELECT x.language, x.browser_type FROM subscribers x WHERE x.id = a.subscriber_id LIMIT 1) s ON true
           WHERE a.status <> 'pending' GROUP BY 1, 2, 3, 4, 5, 6, 7;
         END IF;
         RETURN NULL;
       END $$`,
      `CREATE OR REPLACE FUNCTION delivery_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NOT EXISTS (SELECT 1 FROM changed n JOIN previous o ON o.id = n.id WHERE o.status <> n.status) THEN
           RETURN NULL;
         END IF;
         WITH moved AS MATERIALIZED (
           SELECT n.campaign_id, n.subscriber_id, m.status, m.variant, m.holdout, m.at, m.delta
           FROM changed n JOIN previous o ON o.id = n.id
           CROSS JOIN LATERAL (VALUES (n.status, n.variant, n.holdout, n.updated_at, 1), (o.status, o.variant, o.holdout, o.updated_at, -1))
             AS m (status, variant, holdout, at, delta)
           WHERE o.status <> n.status
         ), counted AS (
           INSERT INTO delivery_counts (campaign_id, status, count) SELECT campaign_id, status, sum(delta) FROM moved GROUP BY 1, 2
         )
         INSERT INTO delivery_breakdown (campaign_id, kind, variant, holdout, language, browser, hour, count)
         SELECT m.campaign_id, m.status, m.variant, m.holdout, s.language, s.browser_type, to_timestamp(floor(extract(epoch FROM m.at) / 3600) * 3600), sum(m.delta)
         FROM moved m LEFT JOIN LATERAL (SELECT x.language, x.browser_type FROM subscribers x WHERE x.id = m.subscriber_id LIMIT 1) s ON true
         WHERE m.status <> 'pending' GROUP BY 1, 2, 3, 4, 5, 6, 7;
         RETURN NULL;
       END $$`,
    ],
  },
  {
    version: 37,
    name: "a delivery's claim written beside its row, without new index entries",
    statements: [
      // A claim stamps claimed_at and attempts, which no index holds (server/campaigns/database-delivery-store.ts: it
      // leaves updated_at, which deliveries_subscriber_delivered indexes, to the result), so its new row version is a
      // HOT update when it fits on the row's page: no entry in any of the five indexes a pending row is in. A claim
      // takes a campaign's rows in id order, every row of a page in one statement, so each page keeps half its room
      // for their claimed versions; the result write's version takes the room of the first, pruned by then. Pages
      // written before this keep their rows (their claims are as before until autovacuum frees room on them).
      `ALTER TABLE deliveries SET (fillfactor = 50)`,
    ],
  },
  {
    version: 39,
    name: "why a campaign's deliveries failed, kept when their rows are deleted",
    statements: [
      // The failure groups of a campaign's report (server/campaigns/delivery-failures.ts: the push service's status,
      // the reason, the host) for its failed and expired rows that were deleted: pruned after the reporting window,
      // or a subscriber erased. A statement trigger on DELETE adds a row per group a statement removed; a send never
      // deletes a delivery (claims and result writes only update), so it costs a send nothing. Pruning folds a
      // campaign's rows into one per group. The reason is the row's own, made safe when it was written
      // (push-failure.ts); no endpoint or subscriber is kept. A campaign deleted with its rows keeps nothing, nor an
      // automation's message (its figures are counted from its rows).
      `CREATE TABLE delivery_failure_counts (
        campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        status_code integer,
        reason text NOT NULL,
        failure_host text,
        count bigint NOT NULL
      )`,
      `CREATE INDEX delivery_failure_counts_campaign ON delivery_failure_counts (campaign_id)`,
      `CREATE FUNCTION delivery_failures_kept() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO delivery_failure_counts (campaign_id, status_code, reason, failure_host, count)
         SELECT g.campaign_id, g.status_code, coalesce(g.last_error, 'no reason recorded'), g.failure_host, count(*) FROM removed g
         WHERE g.status IN ('failed', 'expired') AND EXISTS (SELECT 1 FROM campaigns c WHERE c.id = g.campaign_id AND c.automation IS NULL)
         GROUP BY 1, 2, 3, 4;
         RETURN NULL;
       END $$`,
      `CREATE TRIGGER deliveries_failures_kept AFTER DELETE ON deliveries REFERENCING OLD TABLE AS removed
       FOR EACH STATEMENT EXECUTE FUNCTION delivery_failures_kept()`,
    ],
  },
  {
    version: 40,
    name: "an A/B test's clickers and their variant, kept when the campaign's rows are pruned",
    statements: [
      // A variant's revenue is the orders of its clickers (server/campaigns/campaign-revenue.ts): the click events
      // say who clicked, the delivery row which variant they got. Pruning a campaign's rows
      // (server/campaigns/delivery-pruning.ts) writes, in the statement that deletes them, the subscriber and variant
      // of each deleted test-share row whose subscriber clicked: a row per clicker (the test share's click rate of
      // its recipients), nothing per subscriber who did not, nothing in a send's path. Erasing the subscriber takes it.
      `CREATE TABLE campaign_variant_clickers (
        campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        subscriber_id text NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
        variant smallint NOT NULL,
        PRIMARY KEY (campaign_id, subscriber_id)
      )`,
      `CREATE INDEX campaign_variant_clickers_subscriber ON campaign_variant_clickers (subscriber_id)`,
    ],
  },
  {
    version: 41,
    name: "concurrent browsers' sync actions as one statement",
    statements: [
      // The sync endpoint's batch (server/sync/sync-batch.ts): the insert, update and http-sync actions of the requests
      // that arrive while the previous batch runs go to PostgreSQL as one statement and one commit, instead of one each
      // (bench/README.md, sync endpoint). p_actions: a JSON array of objects, one per action, `i` its place in the
      // batch, the other keys the parameters of pushkit_sync (migration 34) without `p_`; an absent key is NULL.
      // An insert or update is one call of pushkit_sync, in the order of their advisory locks (two batches of
      // different processes take them in the same order); each sees what the earlier ones of its batch wrote. An
      // http-sync updates the profile of the subscriber it names when the secret's hash matches (an absent value
      // leaves the stored one), else answers 'fallback': the provider then decides by the transaction of
      // subscription-sync.ts. A row per action: its `i` and pushkit_sync's answer. A statement that fails fails the
      // whole batch (nothing of it written): the provider then runs each action alone, so that each gets its own answer.
      `CREATE FUNCTION pushkit_sync_batch(p_actions jsonb)
       RETURNS TABLE (i integer, result_code text, result_id text, result_issued boolean, result_welcome boolean) LANGUAGE plpgsql AS $$
       DECLARE
         a record;
         r record;
       BEGIN
         FOR a IN SELECT * FROM jsonb_to_recordset(p_actions) AS x (i integer, action text, site text, lock text, subscriber_id text,
             secret_hash text, new_id text, new_secret_hash text, endpoint text, subscription_id text, subscription jsonb, p256dh text,
             auth text, vapid_key_id text, browser_type text, language text, timezone text, timezone_offset integer, click smallint,
             origin text, page_url text, uuid text)
           ORDER BY x.lock COLLATE "C" NULLS LAST, x.i
         LOOP
           i := a.i;
           IF a.action = 'http-sync' THEN
             UPDATE subscribers s SET browser_type = coalesce(a.browser_type, s.browser_type), language = coalesce(a.language, s.language),
               timezone = coalesce(a.timezone, s.timezone), timezone_offset = coalesce(a.timezone_offset, s.timezone_offset),
               page_click_tracking_permission = coalesce(a.click, s.page_click_tracking_permission), origin = coalesce(a.origin, s.origin),
               subscription_page_url = coalesce(a.page_url, s.subscription_page_url), uuid = coalesce(a.uuid, s.uuid),
               updated_at = now(), last_sync_at = now()
             WHERE s.site_hash = a.site AND s.id = a.subscriber_id AND s.secret_hash = a.secret_hash
             RETURNING s.id INTO result_id;
             result_code := CASE WHEN result_id IS NULL THEN 'fallback' ELSE 'success' END;
             result_issued := false;
             result_welcome := NULL;
           ELSE
             SELECT * INTO r FROM pushkit_sync(a.action, a.site, a.lock, a.subscriber_id, a.secret_hash, a.new_id, a.new_secret_hash,
               a.endpoint, a.subscription_id, a.subscription, a.p256dh, a.auth, a.vapid_key_id, a.browser_type, a.language, a.timezone,
               a.timezone_offset, a.click, a.origin, a.page_url, a.uuid);
             result_code := r.result_code;
             result_id := r.result_id;
             result_issued := r.result_issued;
             result_welcome := r.result_welcome;
           END IF;
           RETURN NEXT;
         END LOOP;
       END $$`,
    ],
  },
  {
    version: 42,
    name: 'a sync batch with refused actions: each action isolated',
    statements: [
      // When a batch's statement fails (one action the database refuses fails them all), the provider runs it again
      // here, once: each action in its own subtransaction, in the same order of advisory locks, so the others are
      // written and a refused one answers 'refused' (its writes undone); only those are then run alone, for their
      // own error. Before, every action of the batch ran alone: 65 statements for a batch of 64 with one refused,
      // which anyone able to mint a subscriber could cause (sync-batch.ts). At most 64 actions (BATCH_MAX): the
      // subtransactions' ids stay within PostgreSQL's per-backend cache of 64.
      `CREATE FUNCTION pushkit_sync_batch_isolated(p_actions jsonb)
       RETURNS TABLE (i integer, result_code text, result_id text, result_issued boolean, result_welcome boolean) LANGUAGE plpgsql AS $$
       DECLARE
         a jsonb;
       BEGIN
         FOR a IN SELECT x.value FROM jsonb_array_elements(p_actions) AS x
           ORDER BY x.value->>'lock' COLLATE "C" NULLS LAST, (x.value->>'i')::integer
         LOOP
           BEGIN
             RETURN QUERY SELECT * FROM pushkit_sync_batch(jsonb_build_array(a));
           EXCEPTION WHEN OTHERS THEN
             i := (a->>'i')::integer;
             result_code := 'refused';
             result_id := NULL;
             result_issued := false;
             result_welcome := NULL;
             RETURN NEXT;
           END;
         END LOOP;
       END $$`,
    ],
  },
  {
    version: 43,
    name: "a campaign's revenue and conversions, kept when its click events are pruned",
    statements: [
      // A campaign's revenue is its clickers' shop orders within the conversion window after their click
      // (server/campaigns/campaign-revenue.ts); the click events go with the event retention (default 180 days). The
      // statement that prunes a campaign's click events (server/campaigns/click-pruning.ts) writes here, per
      // variant (NULL outside an A/B test's share) and currency (NULL: orders posted without one), the orders of
      // the clickers it deleted and their total; pruning folds a campaign's rows into one per group. No subscriber
      // is kept. A campaign deleted keeps nothing.
      `CREATE TABLE campaign_revenue_kept (
        campaign_id bigint NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        variant smallint,
        currency text,
        conversions bigint NOT NULL,
        amount numeric NOT NULL
      )`,
      `CREATE INDEX campaign_revenue_kept_campaign ON campaign_revenue_kept (campaign_id)`,
    ],
  },
  {
    version: 44,
    name: "a site's notifications per day, kept when their rows are pruned",
    statements: [
      // The overview's notifications per day (server/stats/notification-days.ts) count delivery rows, report events
      // and the shop orders after a click; the delivery prune (30 days), the event retention (180 days) and the
      // click prune delete them. Each prune's statement adds what it deleted here, per site and quarter hour (every
      // time zone's midnight is on one, so a day of any zone is a sum of whole rows): delivered, shown and clicked
      // reports, and the orders that counted as conversions and lost their last click in the window. The figures
      // add these to what the remaining rows give, so a day shows the same figures before and after pruning.
      `CREATE TABLE notification_days_kept (
        site_hash text NOT NULL,
        quarter timestamptz NOT NULL,
        delivered bigint NOT NULL DEFAULT 0,
        shown bigint NOT NULL DEFAULT 0,
        clicked bigint NOT NULL DEFAULT 0,
        conversions bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (site_hash, quarter)
      )`,
    ],
  },
  {
    version: 45,
    name: 'a notification report stored once per campaign, subscriber and kind',
    statements: [
      // POST /notificationEvent stores a report once per campaign, subscriber and kind (the worker and the landing
      // page both report a click). Its INSERT ... WHERE NOT EXISTS let two reports racing on PostgreSQL both insert
      // (neither sees the other's uncommitted row), so the click counted twice: in the campaign's figures, the
      // overview's days, and the revenue its prune keeps. A unique index makes the second one do nothing (ON
      // CONFLICT); it replaces events_campaign, whose (campaign_id, kind) it begins with. Only these reports carry a
      // campaign; events without one are NULL there and never equal. The duplicates already stored go first.
      `DELETE FROM events e USING events o
        WHERE e.campaign_id IS NOT NULL AND o.campaign_id = e.campaign_id AND o.kind = e.kind AND o.subscriber_id = e.subscriber_id
          AND o.id < e.id`,
      `CREATE UNIQUE INDEX events_report_once ON events (campaign_id, kind, subscriber_id)`,
      `DROP INDEX events_campaign`,
    ],
  },
  {
    version: 46,
    name: "a notification report's breakdown row without a look for an earlier report",
    statements: [
      // Migration 33's report trigger looked for an earlier report of the subscriber, campaign and kind before
      // counting one. Since migration 45's unique index a second such report is never inserted (ON CONFLICT DO
      // NOTHING, or a unique violation), and an AFTER INSERT trigger fires only for rows inserted, so the look found
      // nothing every time. It cost a plan on events kept for the session's life: one made while events was small
      // read the table row by row, and the embedded database (no autovacuum, so no new statistics to make it plan
      // again) kept it for the process's life. Same rows written; a report without a subscriber still counts each time.
      `CREATE OR REPLACE FUNCTION delivery_breakdown_report() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO delivery_breakdown (campaign_id, kind, variant, holdout, language, browser, hour, count)
         SELECT c.id, NEW.kind, d.variant, d.holdout, s.language, s.browser_type, to_timestamp(floor(extract(epoch FROM NEW.created_at) / 3600) * 3600), 1
         FROM campaigns c LEFT JOIN deliveries d ON d.campaign_id = c.id AND d.subscriber_id = NEW.subscriber_id
         LEFT JOIN subscribers s ON s.id = NEW.subscriber_id WHERE c.id = NEW.campaign_id;
         RETURN NULL;
       END $$`,
    ],
  },
  {
    version: 50,
    name: "a browser's sync rewrites its subscriber in place (a HOT update): room left in each page",
    statements: [
      // An in-sync browser's http-sync and an insert or update that finds its subscriber with the same subscription
      // (pushkit_sync, migrations 34 and 41) change only columns no index holds (the profile, updated_at,
      // last_sync_at) and write the indexed ones (endpoint, subscription_id, uuid, status, vapid_key_id) back
      // byte-equal, which PostgreSQL counts as unchanged. Such an update is HOT (no new entry in any of the eight
      // indexes of subscribers) only when its new row fits in the old row's page; at the default fillfactor of 100
      // the inserts fill each page, so most of them wrote all eight indexes (bench/README.md, issue 34: 252,265 of
      // 772,656 updates HOT on the bench's database). 85 leaves ~1.2 KB per page, room for two versions of a
      // ~660-byte row until the page is pruned (the table ~20% larger). On the bench's database (84,000 subscribers,
      // rewritten by VACUUM FULL first), 5,000 http-syncs of random subscribers, 14 a transaction: 27% HOT at 100,
      // 100% at 85, and 106-114 against 82 µs of PostgreSQL's time each (load 2). An update to a new subscription
      // changes indexed columns and is never HOT. It applies to the pages written from now on; the pages of an
      // existing database keep what their rows left until VACUUM FULL (or pg_repack) rewrites it.
      `ALTER TABLE subscribers SET (fillfactor = 85)`,
    ],
  },
  {
    version: 51,
    name: "a sync batch's insert and update without a function call, a webhook join or a look-up it does not need",
    statements: [
      // The sync endpoint's batch (server/sync/sync-batch.ts) on PostgreSQL spent more CPU per action than the provider
      // (bench/README.md, issue 34). Per statement PostgreSQL pays a start-up and a tear-down of its plan besides the
      // work (a plan of a few index scans costs as much to start as to run), so this does the same work in fewer and
      // smaller statements; each action writes the same rows and gets the same answer as through pushkit_sync
      // (migration 34), which is inlined here and dropped:
      // - one statement less per insert and update (the call of pushkit_sync, a function scan, its result set);
      // - the site's webhook endpoints and welcome switch read once per site and batch (the lock order keeps a site's
      //   actions together), not once per action; the write's webhook_messages insert runs only when an enabled endpoint
      //   of the site takes subscriber.created / .updated (its join found nothing on most sites and still cost a third
      //   table's set-up); a batch reads them at its start, as a statement reads its snapshot;
      // - the look-up is the ways in turn, each a plain index probe, stopping at the first found (an update found by
      //   its id, the usual case, is one probe instead of three probes, an append and two sorts);
      // - the endpoint is released from another record only when the subscriber found does not hold it already (the
      //   unique index on (site_hash, endpoint) says no other record can then).
      // PostgreSQL's CPU per action (the backend's, /proc/<pid>/schedstat), 250 batches of 14 each way, old and new
      // alternating in one session on a copy of the bench's database (139,000 subscribers, load 8): insert 348 -> 274 µs,
      // update (a new subscription id) 275 -> 186 µs, http-sync 79 -> 79 µs; the bench's mix of the three 229 -> 178 µs.
      `CREATE OR REPLACE FUNCTION pushkit_sync_batch(p_actions jsonb)
       RETURNS TABLE (i integer, result_code text, result_id text, result_issued boolean, result_welcome boolean) LANGUAGE plpgsql AS $$
       DECLARE
         a record;
         found_id text;
         found_endpoint text;
         found_subscription_id text;
         found_secret_hash text;
         issue boolean;
         proven boolean;
         keeper text;
         site text;
         hooked_created boolean;
         hooked_updated boolean;
         welcome boolean;
         hook_type text;
       BEGIN
         FOR a IN SELECT * FROM jsonb_to_recordset(p_actions) AS x (i integer, action text, site text, lock text, subscriber_id text,
             secret_hash text, new_id text, new_secret_hash text, endpoint text, subscription_id text, subscription jsonb, p256dh text,
             auth text, vapid_key_id text, browser_type text, language text, timezone text, timezone_offset integer, click smallint,
             origin text, page_url text, uuid text)
           ORDER BY x.lock COLLATE "C" NULLS LAST, x.i
         LOOP
           i := a.i;
           result_issued := false;
           result_welcome := NULL;
           IF a.action = 'http-sync' THEN
             UPDATE subscribers s SET browser_type = coalesce(a.browser_type, s.browser_type), language = coalesce(a.language, s.language),
               timezone = coalesce(a.timezone, s.timezone), timezone_offset = coalesce(a.timezone_offset, s.timezone_offset),
               page_click_tracking_permission = coalesce(a.click, s.page_click_tracking_permission), origin = coalesce(a.origin, s.origin),
               subscription_page_url = coalesce(a.page_url, s.subscription_page_url), uuid = coalesce(a.uuid, s.uuid),
               updated_at = now(), last_sync_at = now()
             WHERE s.site_hash = a.site AND s.id = a.subscriber_id AND s.secret_hash = a.secret_hash
             RETURNING s.id INTO result_id;
             result_code := CASE WHEN result_id IS NULL THEN 'fallback' ELSE 'success' END;
             RETURN NEXT;
             CONTINUE;
           END IF;
           -- the site's webhook endpoints and welcome switch, once per site of the batch
           IF site IS DISTINCT FROM a.site THEN
             site := a.site;
             SELECT coalesce(bool_or('subscriber.created' = ANY (w.events)), false), coalesce(bool_or('subscriber.updated' = ANY (w.events)), false),
               (SELECT (s.changes->>'enabled')::boolean FROM automation_settings s WHERE s.site_hash = site AND s.kind = 'welcome')
             INTO hooked_created, hooked_updated, welcome
             FROM webhook_endpoints w WHERE w.site_hash = site AND w.disabled_at IS NULL;
           END IF;
           PERFORM pg_advisory_xact_lock(hashtext(a.lock));
           -- after the lock, each probe a statement of its own (a fresh snapshot): it sees a concurrent first insert of the
           -- same subscription that committed while this one waited
           issue := false;
           proven := false;
           -- the first found of: an update by id, endpoint, subscription id; an insert by endpoint, subscription id, id
           found_id := NULL;
           IF a.action = 'update' AND a.subscriber_id IS NOT NULL THEN
             SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash INTO found_id, found_endpoint, found_subscription_id, found_secret_hash
             FROM subscribers s WHERE s.site_hash = a.site AND s.id = a.subscriber_id;
           END IF;
           IF found_id IS NULL AND a.endpoint IS NOT NULL THEN
             SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash INTO found_id, found_endpoint, found_subscription_id, found_secret_hash
             FROM subscribers s WHERE s.site_hash = a.site AND s.endpoint = a.endpoint;
           END IF;
           IF found_id IS NULL AND a.subscription_id IS NOT NULL THEN
             SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash INTO found_id, found_endpoint, found_subscription_id, found_secret_hash
             FROM subscribers s
             WHERE s.site_hash = a.site AND s.subscription_id = a.subscription_id ORDER BY s.updated_at DESC LIMIT 1;
           END IF;
           IF found_id IS NULL AND a.action <> 'update' AND a.subscriber_id IS NOT NULL THEN
             SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash INTO found_id, found_endpoint, found_subscription_id, found_secret_hash
             FROM subscribers s WHERE s.site_hash = a.site AND s.id = a.subscriber_id;
           END IF;
           IF found_id IS NULL THEN
             IF a.action = 'update' THEN
               result_code := 'E_SYNC_NOT_SUBSCRIBED';
               result_id := NULL;
               RETURN NEXT;
               CONTINUE;
             END IF;
           ELSIF a.secret_hash IS NOT NULL AND found_secret_hash = a.secret_hash THEN
             proven := true;
           -- holding the subscription proves an insert, and an update of a subscriber stored before secrets existed
           ELSIF (a.action <> 'update' OR found_secret_hash IS NULL)
               AND (found_endpoint = a.endpoint OR found_subscription_id = a.subscription_id) THEN
             proven := true;
             issue := true;
           END IF;
           IF a.action = 'update' AND NOT proven THEN
             result_code := 'proof';
             result_id := NULL;
             RETURN NEXT;
             CONTINUE;
           END IF;
           IF proven THEN
             keeper := found_id;
             -- an endpoint belongs to one subscriber: another record still holding it has lost it
             IF a.endpoint IS NOT NULL AND found_endpoint IS DISTINCT FROM a.endpoint THEN
               UPDATE subscribers SET endpoint = NULL, status = 'expired', updated_at = now()
               WHERE site_hash = a.site AND endpoint = a.endpoint AND id <> keeper;
             END IF;
             UPDATE subscribers SET
               subscription = coalesce(a.subscription, subscription),
               subscription_id = coalesce(a.subscription_id, subscription_id),
               -- a push subscription keeps the key it was made with for as long as its endpoint
               vapid_key_id = CASE WHEN a.vapid_key_id IS NOT NULL AND endpoint IS DISTINCT FROM a.endpoint THEN a.vapid_key_id ELSE vapid_key_id END,
               endpoint = coalesce(a.endpoint, endpoint),
               p256dh = coalesce(a.p256dh, p256dh),
               auth = coalesce(a.auth, auth),
               browser_type = coalesce(a.browser_type, browser_type),
               language = coalesce(a.language, language),
               timezone = coalesce(a.timezone, timezone),
               timezone_offset = coalesce(a.timezone_offset, timezone_offset),
               page_click_tracking_permission = coalesce(a.click, page_click_tracking_permission),
               origin = coalesce(a.origin, origin),
               subscription_page_url = coalesce(a.page_url, subscription_page_url),
               uuid = coalesce(a.uuid, uuid),
               status = 'subscribed',
               updated_at = now(),
               last_sync_at = now(),
               secret_hash = CASE WHEN issue THEN a.new_secret_hash ELSE secret_hash END
             WHERE id = keeper;
             hook_type := 'subscriber.updated';
           ELSE
             -- a subscriber id alone never re-keys a subscriber: without its secret or its subscription, this is a new one
             keeper := a.new_id;
             issue := true;
             WITH inserted AS (
               INSERT INTO subscribers (id, site_hash, last_sync_at, secret_hash, status, subscription, subscription_id, endpoint, p256dh,
                 auth, vapid_key_id, browser_type, language, timezone, timezone_offset, page_click_tracking_permission, origin,
                 subscription_page_url, uuid)
               VALUES (a.new_id, a.site, now(), a.new_secret_hash, 'subscribed', a.subscription, a.subscription_id, a.endpoint, a.p256dh,
                 a.auth, a.vapid_key_id, a.browser_type, a.language, a.timezone, a.timezone_offset, a.click, a.origin, a.page_url, a.uuid)
               RETURNING id
             )
             INSERT INTO events (site_hash, subscriber_id, kind) SELECT a.site, n.id, 'subscribed' FROM inserted n;
             hook_type := 'subscriber.created';
           END IF;
           -- its webhook message from the row as written, for each enabled endpoint of the site that takes it
           IF (hook_type = 'subscriber.created' AND hooked_created) OR (hook_type = 'subscriber.updated' AND hooked_updated) THEN
             INSERT INTO webhook_messages (endpoint_id, event_type, payload, order_key, dedupe_key, created_at)
             SELECT w.id, hook_type, jsonb_build_object('type', hook_type, 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                 'data', jsonb_build_object('subscriberId', s.id, 'status', s.status, 'browserType', s.browser_type, 'language', s.language,
                   'timezone', s.timezone, 'origin', s.origin, 'createdAt', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))::text,
               s.id, NULL, now()
             FROM subscribers s JOIN webhook_endpoints w ON w.site_hash = s.site_hash AND hook_type = ANY (w.events) AND w.disabled_at IS NULL
             WHERE s.id = keeper
             ON CONFLICT DO NOTHING;
           END IF;
           result_code := 'success';
           result_id := keeper;
           result_issued := issue;
           result_welcome := CASE WHEN a.action = 'update' THEN NULL ELSE welcome END;
           RETURN NEXT;
         END LOOP;
       END $$`,
      `DROP FUNCTION pushkit_sync(text, text, text, text, text, text, text, text, text, jsonb, text, text, text, text, text, text, integer,
         smallint, text, text, text)`,
    ],
  },
  {
    version: 53,
    name: "a claim's and a result batch's figures without joining the statement's old and new rows",
    statements: [
      // Migration 36's update trigger first joined the statement's old and new rows to see whether any status moved.
      // A PL/pgSQL statement's plan is made once per connection, with the sizes of the transition tables of its first
      // call: a connection whose first update of deliveries was one row (a reschedule, a lone result) joined every
      // later statement's rows pair by pair. A claim of 400 pending rows spent 64-128 ms in this trigger (EXPLAIN
      // ANALYZE, 100,000 subscribers, load 8-12) against ~20 ms for the claim itself, and a renewal of 800 held claims
      // 86 ms, to find that nothing moved. Two cases are now told apart by a pass over each table alone: every row
      // pending before and after (a claim, a renewal, a reschedule: nothing to count) and every row pending before
      // and none after (a result batch: every row moved, its old and new rows counted without pairing them). Any
      // other statement is counted as before. Same rows written.
      `CREATE OR REPLACE FUNCTION delivery_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
       DECLARE
         was_pending boolean := NOT EXISTS (SELECT 1 FROM previous WHERE status <> 'pending');
       BEGIN
         IF was_pending AND NOT EXISTS (SELECT 1 FROM changed WHERE status <> 'pending') THEN
           RETURN NULL;
         END IF;
         IF was_pending AND NOT EXISTS (SELECT 1 FROM changed WHERE status = 'pending') THEN
           WITH moved AS MATERIALIZED (
             SELECT n.campaign_id, n.subscriber_id, n.status, n.variant, n.holdout, n.updated_at AS at, 1 AS delta FROM changed n
             UNION ALL
             SELECT o.campaign_id, o.subscriber_id, o.status, o.variant, o.holdout, o.updated_at, -1 FROM previous o
           ), counted AS (
             INSERT INTO delivery_counts (campaign_id, status, count) SELECT campaign_id, status, sum(delta) FROM moved GROUP BY 1, 2
           )
           INSERT INTO delivery_breakdown (campaign_id, kind, variant, holdout, language, browser, hour, count)
           SELECT m.campaign_id, m.status, m.variant, m.holdout, s.language, s.browser_type, to_timestamp(floor(extract(epoch FROM m.at) / 3600) * 3600), sum(m.delta)
           FROM moved m LEFT JOIN LATERAL (SELECT x.language, x.browser_type FROM subscribers x WHERE x.id = m.subscriber_id LIMIT 1) s ON true
           WHERE m.status <> 'pending' GROUP BY 1, 2, 3, 4, 5, 6, 7;
           RETURN NULL;
         END IF;
         IF NOT EXISTS (SELECT 1 FROM changed n JOIN previous o ON o.id = n.id WHERE o.status <> n.status) THEN
           RETURN NULL;
         END IF;
         WITH moved AS MATERIALIZED (
           SELECT n.campaign_id, n.subscriber_id, m.status, m.variant, m.holdout, m.at, m.delta
           FROM changed n JOIN previous o ON o.id = n.id
           CROSS JOIN LATERAL (VALUES (n.status, n.variant, n.holdout, n.updated_at, 1), (o.status, o.variant, o.holdout, o.updated_at, -1))
             AS m (status, variant, holdout, at, delta)
           WHERE o.status <> n.status
         ), counted AS (
           INSERT INTO delivery_counts (campaign_id, status, count) SELECT campaign_id, status, sum(delta) FROM moved GROUP BY 1, 2
         )
         INSERT INTO delivery_breakdown (campaign_id, kind, variant, holdout, language, browser, hour, count)
         SELECT m.campaign_id, m.status, m.variant, m.holdout, s.language, s.browser_type, to_timestamp(floor(extract(epoch FROM m.at) / 3600) * 3600), sum(m.delta)
         FROM moved m LEFT JOIN LATERAL (SELECT x.language, x.browser_type FROM subscribers x WHERE x.id = m.subscriber_id LIMIT 1) s ON true
         WHERE m.status <> 'pending' GROUP BY 1, 2, 3, 4, 5, 6, 7;
         RETURN NULL;
       END $$`,
    ],
  },
  {
    version: 54,
    name: "a campaign's delivery rows written without a foreign-key check per row",
    statements: [
      // Each delivery row's two foreign keys were checked one row at a time (a look-up and a share lock of its campaign
      // and of its subscriber per row): about half of creation's database time (100,000 rows, alternating: 5.3 -> 2.8 s
      // of PostgreSQL's CPU, bench/README.md issue 34), and a lock written on every subscriber per campaign. A deleted
      // campaign or subscriber takes its delivery rows with it, as the cascade did, by one statement per delete. What
      // the keys guarded at insert is kept by the writers: a campaign's rows are written in its creating transaction or
      // by a chunk that holds a share lock on the campaign (chunked-creation.ts); a subscriber erased while a chunk
      // that read it is being written leaves a pending row, which the claim deletes when it reaches it
      // (database-delivery-store.ts pickDue), as the cascade would have.
      `ALTER TABLE deliveries DROP CONSTRAINT deliveries_campaign_id_fkey`,
      `ALTER TABLE deliveries DROP CONSTRAINT deliveries_subscriber_id_fkey`,
      `CREATE FUNCTION deliveries_of_removed_campaigns() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         DELETE FROM deliveries WHERE campaign_id = ANY (ARRAY(SELECT id FROM removed));
         RETURN NULL;
       END $$`,
      `CREATE TRIGGER campaigns_deliveries_removed AFTER DELETE ON campaigns REFERENCING OLD TABLE AS removed
       FOR EACH STATEMENT EXECUTE FUNCTION deliveries_of_removed_campaigns()`,
      `CREATE FUNCTION deliveries_of_removed_subscribers() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         DELETE FROM deliveries WHERE subscriber_id = ANY (ARRAY(SELECT id FROM removed));
         RETURN NULL;
       END $$`,
      `CREATE TRIGGER subscribers_deliveries_removed AFTER DELETE ON subscribers REFERENCING OLD TABLE AS removed
       FOR EACH STATEMENT EXECUTE FUNCTION deliveries_of_removed_subscribers()`,
    ],
  },
  {
    version: 55,
    name: "a sync batch's http-sync never waits for a subscriber another batch holds",
    statements: [
      // A batch holds every row it wrote to its end. Its http-syncs take no advisory lock, so one that waited for a row
      // held by another batch, itself waiting for a row this batch wrote, closed a cycle: PostgreSQL tells a deadlock
      // only after deadlock_timeout (1 s), and the whole batch then ran again (the soak: 12-19 a run of 30 s, p99
      // 1.2-2.1 s; the sync bench 2 a run). An http-sync whose subscriber another transaction holds now answers
      // 'fallback' at once, and the provider runs it alone (server/sync/subscription-sync.ts, httpSync), holding
      // nothing else while it waits. The rest is migration 51's function.
      `CREATE OR REPLACE FUNCTION pushkit_sync_batch(p_actions jsonb)
       RETURNS TABLE (i integer, result_code text, result_id text, result_issued boolean, result_welcome boolean) LANGUAGE plpgsql AS $$
       DECLARE
         a record;
         found_id text;
         found_endpoint text;
         found_subscription_id text;
         found_secret_hash text;
         issue boolean;
         proven boolean;
         keeper text;
         site text;
         hooked_created boolean;
         hooked_updated boolean;
         welcome boolean;
         hook_type text;
       BEGIN
         FOR a IN SELECT * FROM jsonb_to_recordset(p_actions) AS x (i integer, action text, site text, lock text, subscriber_id text,
             secret_hash text, new_id text, new_secret_hash text, endpoint text, subscription_id text, subscription jsonb, p256dh text,
             auth text, vapid_key_id text, browser_type text, language text, timezone text, timezone_offset integer, click smallint,
             origin text, page_url text, uuid text)
           ORDER BY x.lock COLLATE "C" NULLS LAST, x.i
         LOOP
           i := a.i;
           result_issued := false;
           result_welcome := NULL;
           IF a.action = 'http-sync' THEN
             -- the row now, or the fallback: an http-sync never waits in a batch (see migration 55); only with its secret,
             -- so a request naming someone else's subscriber locks nothing
             PERFORM 1 FROM subscribers l WHERE l.site_hash = a.site AND l.id = a.subscriber_id AND l.secret_hash = a.secret_hash
               FOR NO KEY UPDATE SKIP LOCKED;
             IF NOT FOUND THEN
               result_code := 'fallback';
               result_id := NULL;
               RETURN NEXT;
               CONTINUE;
             END IF;
             UPDATE subscribers s SET browser_type = coalesce(a.browser_type, s.browser_type), language = coalesce(a.language, s.language),
               timezone = coalesce(a.timezone, s.timezone), timezone_offset = coalesce(a.timezone_offset, s.timezone_offset),
               page_click_tracking_permission = coalesce(a.click, s.page_click_tracking_permission), origin = coalesce(a.origin, s.origin),
               subscription_page_url = coalesce(a.page_url, s.subscription_page_url), uuid = coalesce(a.uuid, s.uuid),
               updated_at = now(), last_sync_at = now()
             WHERE s.site_hash = a.site AND s.id = a.subscriber_id AND s.secret_hash = a.secret_hash
             RETURNING s.id INTO result_id;
             result_code := CASE WHEN result_id IS NULL THEN 'fallback' ELSE 'success' END;
             RETURN NEXT;
             CONTINUE;
           END IF;
           -- the site's webhook endpoints and welcome switch, once per site of the batch
           IF site IS DISTINCT FROM a.site THEN
             site := a.site;
             SELECT coalesce(bool_or('subscriber.created' = ANY (w.events)), false), coalesce(bool_or('subscriber.updated' = ANY (w.events)), false),
               (SELECT (s.changes->>'enabled')::boolean FROM automation_settings s WHERE s.site_hash = site AND s.kind = 'welcome')
             INTO hooked_created, hooked_updated, welcome
             FROM webhook_endpoints w WHERE w.site_hash = site AND w.disabled_at IS NULL;
           END IF;
           PERFORM pg_advisory_xact_lock(hashtext(a.lock));
           -- after the lock, each probe a statement of its own (a fresh snapshot): it sees a concurrent first insert of the
           -- same subscription that committed while this one waited
           issue := false;
           proven := false;
           -- the first found of: an update by id, endpoint, subscription id; an insert by endpoint, subscription id, id
           found_id := NULL;
           IF a.action = 'update' AND a.subscriber_id IS NOT NULL THEN
             SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash INTO found_id, found_endpoint, found_subscription_id, found_secret_hash
             FROM subscribers s WHERE s.site_hash = a.site AND s.id = a.subscriber_id;
           END IF;
           IF found_id IS NULL AND a.endpoint IS NOT NULL THEN
             SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash INTO found_id, found_endpoint, found_subscription_id, found_secret_hash
             FROM subscribers s WHERE s.site_hash = a.site AND s.endpoint = a.endpoint;
           END IF;
           IF found_id IS NULL AND a.subscription_id IS NOT NULL THEN
             SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash INTO found_id, found_endpoint, found_subscription_id, found_secret_hash
             FROM subscribers s
             WHERE s.site_hash = a.site AND s.subscription_id = a.subscription_id ORDER BY s.updated_at DESC LIMIT 1;
           END IF;
           IF found_id IS NULL AND a.action <> 'update' AND a.subscriber_id IS NOT NULL THEN
             SELECT s.id, s.endpoint, s.subscription_id, s.secret_hash INTO found_id, found_endpoint, found_subscription_id, found_secret_hash
             FROM subscribers s WHERE s.site_hash = a.site AND s.id = a.subscriber_id;
           END IF;
           IF found_id IS NULL THEN
             IF a.action = 'update' THEN
               result_code := 'E_SYNC_NOT_SUBSCRIBED';
               result_id := NULL;
               RETURN NEXT;
               CONTINUE;
             END IF;
           ELSIF a.secret_hash IS NOT NULL AND found_secret_hash = a.secret_hash THEN
             proven := true;
           -- holding the subscription proves an insert, and an update of a subscriber stored before secrets existed
           ELSIF (a.action <> 'update' OR found_secret_hash IS NULL)
               AND (found_endpoint = a.endpoint OR found_subscription_id = a.subscription_id) THEN
             proven := true;
             issue := true;
           END IF;
           IF a.action = 'update' AND NOT proven THEN
             result_code := 'proof';
             result_id := NULL;
             RETURN NEXT;
             CONTINUE;
           END IF;
           IF proven THEN
             keeper := found_id;
             -- an endpoint belongs to one subscriber: another record still holding it has lost it
             IF a.endpoint IS NOT NULL AND found_endpoint IS DISTINCT FROM a.endpoint THEN
               UPDATE subscribers SET endpoint = NULL, status = 'expired', updated_at = now()
               WHERE site_hash = a.site AND endpoint = a.endpoint AND id <> keeper;
             END IF;
             UPDATE subscribers SET
               subscription = coalesce(a.subscription, subscription),
               subscription_id = coalesce(a.subscription_id, subscription_id),
               -- a push subscription keeps the key it was made with for as long as its endpoint
               vapid_key_id = CASE WHEN a.vapid_key_id IS NOT NULL AND endpoint IS DISTINCT FROM a.endpoint THEN a.vapid_key_id ELSE vapid_key_id END,
               endpoint = coalesce(a.endpoint, endpoint),
               p256dh = coalesce(a.p256dh, p256dh),
               auth = coalesce(a.auth, auth),
               browser_type = coalesce(a.browser_type, browser_type),
               language = coalesce(a.language, language),
               timezone = coalesce(a.timezone, timezone),
               timezone_offset = coalesce(a.timezone_offset, timezone_offset),
               page_click_tracking_permission = coalesce(a.click, page_click_tracking_permission),
               origin = coalesce(a.origin, origin),
               subscription_page_url = coalesce(a.page_url, subscription_page_url),
               uuid = coalesce(a.uuid, uuid),
               status = 'subscribed',
               updated_at = now(),
               last_sync_at = now(),
               secret_hash = CASE WHEN issue THEN a.new_secret_hash ELSE secret_hash END
             WHERE id = keeper;
             hook_type := 'subscriber.updated';
           ELSE
             -- a subscriber id alone never re-keys a subscriber: without its secret or its subscription, this is a new one
             keeper := a.new_id;
             issue := true;
             WITH inserted AS (
               INSERT INTO subscribers (id, site_hash, last_sync_at, secret_hash, status, subscription, subscription_id, endpoint, p256dh,
                 auth, vapid_key_id, browser_type, language, timezone, timezone_offset, page_click_tracking_permission, origin,
                 subscription_page_url, uuid)
               VALUES (a.new_id, a.site, now(), a.new_secret_hash, 'subscribed', a.subscription, a.subscription_id, a.endpoint, a.p256dh,
                 a.auth, a.vapid_key_id, a.browser_type, a.language, a.timezone, a.timezone_offset, a.click, a.origin, a.page_url, a.uuid)
               RETURNING id
             )
             INSERT INTO events (site_hash, subscriber_id, kind) SELECT a.site, n.id, 'subscribed' FROM inserted n;
             hook_type := 'subscriber.created';
           END IF;
           -- its webhook message from the row as written, for each enabled endpoint of the site that takes it
           IF (hook_type = 'subscriber.created' AND hooked_created) OR (hook_type = 'subscriber.updated' AND hooked_updated) THEN
             INSERT INTO webhook_messages (endpoint_id, event_type, payload, order_key, dedupe_key, created_at)
             SELECT w.id, hook_type, jsonb_build_object('type', hook_type, 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                 'data', jsonb_build_object('subscriberId', s.id, 'status', s.status, 'browserType', s.browser_type, 'language', s.language,
                   'timezone', s.timezone, 'origin', s.origin, 'createdAt', to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))::text,
               s.id, NULL, now()
             FROM subscribers s JOIN webhook_endpoints w ON w.site_hash = s.site_hash AND hook_type = ANY (w.events) AND w.disabled_at IS NULL
             WHERE s.id = keeper
             ON CONFLICT DO NOTHING;
           END IF;
           result_code := 'success';
           result_id := keeper;
           result_issued := issue;
           result_welcome := CASE WHEN a.action = 'update' THEN NULL ELSE welcome END;
           RETURN NEXT;
         END LOOP;
       END $$`,
    ],
  },
];
