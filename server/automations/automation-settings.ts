// The settings of a site's automations: the site config's (config/schema.ts `automations`), with the fields
// the owner changed through the owner API on top. Only the changes are stored, so a field the owner never
// touched follows the config when it changes.
import type { Queryable } from '../db/database.ts';
import type { HostedSite } from '../sites.ts';
import { AUTOMATION_KINDS, type AutomationChange, type AutomationKind, type AutomationSettings } from '../../contract/automations.ts';

export interface EffectiveSettings extends AutomationSettings {
  changed: (keyof AutomationSettings)[];
}

function fromConfig(site: Pick<HostedSite, 'config'>, kind: AutomationKind): AutomationSettings {
  const configured = site.config.automations[kind];
  return { ...configured, texts: {}, url: configured.url ?? null, audience: null };
}

function merged(site: Pick<HostedSite, 'config'>, kind: AutomationKind, changes: AutomationChange | undefined): EffectiveSettings {
  const stored = changes ?? {};
  return { ...fromConfig(site, kind), ...stored, changed: Object.keys(stored) as (keyof AutomationSettings)[] };
}

/** Every automation of the site, as it runs now. */
export async function automationSettings(
  db: Queryable,
  site: Pick<HostedSite, 'hash' | 'config'>,
): Promise<Record<AutomationKind, EffectiveSettings>> {
  const { rows } = await db.query<{ kind: AutomationKind; changes: AutomationChange }>(
    'SELECT kind, changes FROM automation_settings WHERE site_hash = $1',
    [site.hash],
  );
  const changes = new Map(rows.map((row) => [row.kind, row.changes]));
  return Object.fromEntries(AUTOMATION_KINDS.map((kind) => [kind, merged(site, kind, changes.get(kind))])) as Record<
    AutomationKind,
    EffectiveSettings
  >;
}

export async function automationSetting(
  db: Queryable,
  site: Pick<HostedSite, 'hash' | 'config'>,
  kind: AutomationKind,
): Promise<EffectiveSettings> {
  return (await automationSettings(db, site))[kind];
}

/** Stores the owner's change on top of the earlier ones (one statement: concurrent changes of other fields both stay). */
export async function changeAutomation(db: Queryable, siteHash: string, kind: AutomationKind, change: AutomationChange): Promise<void> {
  await db.query(
    `INSERT INTO automation_settings (site_hash, kind, changes) VALUES ($1, $2, $3)
     ON CONFLICT (site_hash, kind) DO UPDATE SET changes = automation_settings.changes || EXCLUDED.changes, updated_at = now()`,
    [siteHash, kind, JSON.stringify(change)],
  );
}

/**
 * Each site's automations' conversion windows in hours as they run now, by site hash and kind: the click prune
 * keeps a pruned click's conversions with its automation's own (server/campaigns/click-pruning.ts).
 */
export async function automationWindows(
  db: Queryable,
  sites: readonly Pick<HostedSite, 'hash' | 'config'>[],
): Promise<Record<string, Record<AutomationKind, number>>> {
  const windows: Record<string, Record<AutomationKind, number>> = {};
  for (const site of sites) {
    const settings = await automationSettings(db, site);
    windows[site.hash] = Object.fromEntries(AUTOMATION_KINDS.map((kind) => [kind, settings[kind].conversionWindowHours])) as Record<
      AutomationKind,
      number
    >;
  }
  return windows;
}
