// The owner's use cases of drafts and templates: list, save a new one, save over one, delete. A draft is saved as
// the owner types (the dashboard debounces), so saving is one statement and never touches the audit log's
// neighbours: only creating and deleting are audited (routes.ts).
import type { Database, Queryable } from '../db/database.ts';
import { ServerError } from '../errors.ts';
import type { HostedSite } from '../sites.ts';
import { DRAFTS_MAX, type DraftInput, type DraftKind, type DraftUpdate, type MessageDraft } from '../../contract/compose.ts';
import { countDrafts, deleteDraft, getDraft, insertDraft, listDrafts, updateDraft } from './draft-store.ts';

const unknownDraft = (site: HostedSite, id: string) => new ServerError('E_DRAFT_UNKNOWN', { param: 'id', id, site: site.name });

export function siteDrafts(db: Queryable, site: HostedSite, kind?: DraftKind): Promise<MessageDraft[]> {
  return listDrafts(db, site.hash, kind);
}

export async function siteDraft(db: Queryable, site: HostedSite, id: string): Promise<MessageDraft> {
  const draft = await getDraft(db, site.hash, id);
  if (!draft) throw unknownDraft(site, id);
  return draft;
}

export async function addSiteDraft(db: Database, site: HostedSite, input: DraftInput, savedBy: string, now: number): Promise<MessageDraft> {
  return db.transaction(async (tx) => {
    // one count and insert per site at a time, so two tabs saving at once cannot pass the cap together
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`drafts:${site.hash}`]);
    if ((await countDrafts(tx, site.hash)) >= DRAFTS_MAX) throw new ServerError('E_DRAFTS_MAX', { site: site.name, max: DRAFTS_MAX });
    return insertDraft(tx, site.hash, input, savedBy, new Date(now));
  });
}

export async function saveSiteDraft(
  db: Queryable,
  site: HostedSite,
  id: string,
  update: DraftUpdate,
  savedBy: string,
  now: number,
): Promise<MessageDraft> {
  const draft = await updateDraft(db, site.hash, id, update, savedBy, new Date(now));
  if (!draft) throw unknownDraft(site, id);
  return draft;
}

export async function removeSiteDraft(db: Queryable, site: HostedSite, id: string): Promise<void> {
  if (!(await deleteDraft(db, site.hash, id))) throw unknownDraft(site, id);
}
