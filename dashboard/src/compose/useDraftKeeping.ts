// The compose form kept by the provider as the owner types (docs/dashboard.md#drafts-templates-and-test-sends): a
// first change makes a draft (POST .../drafts), later ones save over it, debounced, and leaving the screen saves at
// once. The address says which draft is open (#/compose/draft/<id>), so a reload opens it again; the tab remembers
// it too (sessionStorage), so coming back to "Send a notification" does. Duplicating a campaign
// (#/compose/campaign/<id>, the Campaigns screen's link) and starting from a template open a new draft.
import { useEffect, useRef, useState } from 'react';
import type { MessageDraft } from '../../../contract/compose.ts';
import type { SiteSummary } from '../../../contract/owner-api.ts';
import { ApiError, type SiteApi } from '../api.ts';
import { displayZone } from '../clock/index.ts';
import { blankDraft, type Draft } from './draft.ts';
import { draftFromCampaign, draftFromContent, draftName, hasContent } from './draftContent.ts';

/** How long typing pauses before the draft is saved. */
export const SAVE_DELAY_MS = 600;

const rememberedKey = (site: string) => `pushkit-compose-draft:${site}`;
/** Now on the owner's clock (the dashboard's display zone, clock/), not the machine's. */
const clockTime = () => new Date().toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', timeZone: displayZone() });

export interface DraftKeeping {
  draftId: string | null;
  /** "Draft saved at 18:31", "Saving…", or why it was not saved. */
  status: string;
  /** The site's drafts and templates, the last saved first. */
  library: MessageDraft[];
  /** Call on every change the owner makes (not on a draft being opened). */
  edited(): void;
  open(saved: MessageDraft): void;
  startFrom(template: MessageDraft): void;
  saveAsTemplate(name: string): Promise<void>;
  remove(saved: MessageDraft): Promise<void>;
  /** The message was sent: its draft is deleted. */
  sent(): Promise<void>;
  /** A blank form, not yet a draft. */
  blank(): void;
}

export function useDraftKeeping({
  api,
  site,
  route,
  draft,
  setDraft,
  onError,
}: {
  api: SiteApi;
  site: SiteSummary;
  route: string[];
  draft: Draft;
  setDraft(draft: Draft): void;
  onError(error: unknown): string;
}): DraftKeeping {
  const [draftId, setDraftId] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [library, setLibrary] = useState<MessageDraft[]>([]);
  const idRef = useRef<string | null>(null);
  const dirty = useRef(false);
  const creating = useRef<Promise<void> | null>(null);
  // An owner's action's message (template saved, draft opened, …) stays until the form is changed again: a draft's
  // save of earlier changes, still under way or not yet started, saves without replacing it (its failure is still
  // told). `told` counts such messages; `toldAtEdit` is the count at the last change.
  const told = useRef(0);
  const toldAtEdit = useRef(0);
  const tell = (message: string) => {
    told.current += 1;
    setStatus(message);
  };
  const changed = () => {
    dirty.current = true;
    toldAtEdit.current = told.current;
  };
  const latest = useRef(draft);
  latest.current = draft;
  const context = useRef({ api, site, onError });
  context.current = { api, site, onError };

  const onCompose = () => window.location.hash.startsWith('#/compose');
  const point = (id: string | null) => {
    idRef.current = id;
    setDraftId(id);
    if (id === null) sessionStorage.removeItem(rememberedKey(site.name));
    else sessionStorage.setItem(rememberedKey(site.name), id);
    if (onCompose()) history.replaceState(null, '', id === null ? '#/compose' : `#/compose/draft/${encodeURIComponent(id)}`);
  };
  const refresh = () => context.current.api.drafts().then(setLibrary, (failure: unknown) => setStatus(context.current.onError(failure)));

  const save = async (): Promise<void> => {
    const { api: calls, site: where, onError: report } = context.current;
    if (!dirty.current) return;
    const current = latest.current;
    if (idRef.current === null && !hasContent(current, where)) return;
    dirty.current = false;
    const body = { name: draftName(current), content: current as unknown as Record<string, unknown> };
    const progress = (message: string) => toldAtEdit.current === told.current && setStatus(message);
    progress('Saving…');
    try {
      if (idRef.current === null && creating.current === null) {
        creating.current = calls.addDraft({ kind: 'draft', ...body }).then((created) => point(created.draftId));
        try {
          await creating.current;
        } finally {
          creating.current = null;
        }
      } else {
        if (creating.current) await creating.current;
        await calls.saveDraft(idRef.current!, body);
      }
      progress(`Draft saved at ${clockTime()}`);
      void refresh();
    } catch (failure) {
      dirty.current = true;
      // deleted meanwhile (another tab sent or deleted it): what is typed here becomes a new draft
      if (failure instanceof ApiError && failure.status === 404 && idRef.current !== null) {
        point(null);
        return save();
      }
      setStatus(`The draft is not saved: ${report(failure)}`);
    }
  };

  // saved once typing pauses; at once when the screen is left
  useEffect(() => {
    if (!dirty.current) return;
    const timer = setTimeout(() => void save(), SAVE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft]);
  useEffect(() => () => void save(), []);

  const routeKey = route.join('/');
  useEffect(() => {
    let cancelled = false;
    const [kind, id] = route;
    const load = async () => {
      const saved = await api.drafts();
      if (cancelled) return;
      setLibrary(saved);
      const remembered = sessionStorage.getItem(rememberedKey(site.name));
      if (kind === 'campaign' && id) {
        const campaign = await api.campaign(id);
        if (cancelled) return;
        setDraft(draftFromCampaign(campaign, site));
        point(null);
        tell(`A copy of “${campaign.title}”: a new draft.`);
        changed();
        return;
      }
      const wanted = kind === 'draft' || kind === 'template' ? id : (remembered ?? undefined);
      const found = saved.find((entry) => entry.draftId === wanted);
      if (found?.kind === 'template') startFrom(found);
      else if (found) open(found);
      else if (kind === 'draft' && id) tell(`Draft ${id} is no longer kept (sent or deleted): a new message.`);
    };
    load().catch((failure: unknown) => !cancelled && setStatus(onError(failure)));
    return () => {
      cancelled = true;
    };
  }, [api, routeKey]);

  function open(saved: MessageDraft) {
    setDraft(draftFromContent(saved.content, site));
    dirty.current = false;
    point(saved.draftId);
    tell(`Draft opened (saved by ${saved.savedBy}).`);
  }

  function startFrom(template: MessageDraft) {
    setDraft(draftFromContent(template.content, site));
    point(null);
    tell(`From the template “${template.name}”: a new draft.`);
    changed();
  }

  return {
    draftId,
    status,
    library,
    edited: changed,
    open,
    startFrom,
    saveAsTemplate: async (name) => {
      try {
        await api.addDraft({ kind: 'template', name, content: draft as unknown as Record<string, unknown> });
        tell(`Template “${name}” saved.`);
        await refresh();
      } catch (failure) {
        tell(`The template is not saved: ${onError(failure)}`);
      }
    },
    remove: async (saved) => {
      try {
        await api.deleteDraft(saved.draftId);
        if (saved.draftId === idRef.current) point(null);
        tell(`${saved.kind === 'template' ? 'Template' : 'Draft'} “${saved.name || 'Untitled'}” deleted.`);
        await refresh();
      } catch (failure) {
        tell(onError(failure));
      }
    },
    sent: async () => {
      if (creating.current) await creating.current.catch(() => undefined);
      const id = idRef.current;
      dirty.current = false;
      point(null);
      if (id === null) return;
      // a draft deleted meanwhile (another tab) is already gone: nothing to say
      await api.deleteDraft(id).catch(() => undefined);
      tell('');
      await refresh();
    },
    blank: () => {
      setDraft(blankDraft(site));
      dirty.current = false;
      point(null);
      tell('');
    },
  };
}
