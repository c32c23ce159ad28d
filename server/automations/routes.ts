// The owner API of a site's automations (docs/automations.md), inside the owner scope: ownerSiteHook has checked
// the key of the site the path names before any of these.
//   GET   /api/v1/sites/:name/automations          every automation, its settings and its figures
//   GET   /api/v1/sites/:name/automations/:kind    one of them
//   PATCH /api/v1/sites/:name/automations/:kind    change (pause: {"enabled": false}); answers the automation
// A change is in the audit log, saying what it did ("welcome: paused (2 scheduled messages withdrawn)"); the
// messages an automation sends are not (each is counted on its card), as a campaign's deliveries are not.
import type { FastifyInstance } from 'fastify';
import { ownedSite, setAuditTarget } from '../http/owner-auth.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { SITE_PARAMS } from '../http/params.ts';
import type { HostedSite } from '../sites.ts';
import type { Queryable } from '../db/database.ts';
import { requireAudience } from '../audiences/index.ts';
import { automationSettings, changeAutomation, type EffectiveSettings } from './automation-settings.ts';
import { automationStats, dropPendingMessages } from './automation-messages.ts';
import { AUTOMATION_REPLY, automationParams, AUTOMATIONS_REPLY } from './schemas.ts';
import { AUTOMATION_KINDS, type Automation, type AutomationKind } from '../../contract/automations.ts';
import { automationChangeSchema, type AutomationChange } from '../../contract/automation-input.ts';

async function describe(db: Queryable, site: HostedSite, kind: AutomationKind, settings: EffectiveSettings): Promise<Automation> {
  const { changed, ...current } = settings;
  return { kind, ...current, changed, stats: await automationStats(db, site.hash, kind, settings.conversionWindowHours) };
}

/** The audit log's target of a change: the kind, paused or resumed, and which settings it changed. */
function auditedChange(kind: AutomationKind, change: AutomationChange, wasEnabled: boolean, withdrawn: number): string {
  const done: string[] = [];
  if (change.enabled === false && wasEnabled) {
    done.push(withdrawn > 0 ? `paused (${withdrawn} scheduled message${withdrawn === 1 ? '' : 's'} withdrawn)` : 'paused');
  }
  if (change.enabled === true && !wasEnabled) done.push('resumed');
  const fields = Object.entries(change).filter(([field, value]) => field !== 'enabled' && value !== undefined);
  if (fields.length > 0) done.push(`${fields.map(([field]) => field).join(', ')} changed`);
  return `${kind}: ${done.length > 0 ? done.join('; ') : 'nothing changed'}`;
}

export async function automationRoutes(fastify: FastifyInstance, { db }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/v1/sites/:name/automations',
    { config: { role: 'viewer' }, schema: { params: SITE_PARAMS, response: { 200: AUTOMATIONS_REPLY } } },
    async (request) => {
      const site = ownedSite(request);
      const settings = await automationSettings(db, site);
      const automations: Automation[] = [];
      for (const kind of AUTOMATION_KINDS) automations.push(await describe(db, site, kind, settings[kind]));
      return { status: 'success' as const, automations };
    },
  );

  app.get(
    '/api/v1/sites/:name/automations/:kind',
    { config: { role: 'viewer' }, schema: { params: automationParams, response: { 200: AUTOMATION_REPLY } } },
    async (request) => {
      const site = ownedSite(request);
      const { kind } = request.params;
      const settings = await automationSettings(db, site);
      return { status: 'success' as const, automation: await describe(db, site, kind, settings[kind]) };
    },
  );

  app.patch(
    '/api/v1/sites/:name/automations/:kind',
    {
      config: { role: 'editor', audit: 'automation.update' },
      schema: { params: automationParams, body: automationChangeSchema, response: { 200: AUTOMATION_REPLY } },
    },
    async (request) => {
      const site = ownedSite(request);
      const { kind } = request.params;
      const change = request.body;
      if (change.audience) await requireAudience(db, site, change.audience, 'audience');
      const wasEnabled = (await automationSettings(db, site))[kind].enabled;
      await changeAutomation(db, site.hash, kind, change);
      // A pause withdraws what the automation had scheduled: nothing of it is sent, now or on resuming.
      const withdrawn = change.enabled === false ? await dropPendingMessages(db, site.hash, kind) : 0;
      setAuditTarget(request, auditedChange(kind, change, wasEnabled, withdrawn));
      const settings = await automationSettings(db, site);
      return { status: 'success' as const, automation: await describe(db, site, kind, settings[kind]) };
    },
  );
}
