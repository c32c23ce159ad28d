import { useState } from 'react';
import { Time } from '../clock/index.ts';
import { ConfirmDelete } from '../ConfirmDelete.tsx';
import type { DraftKeeping } from './useDraftKeeping.ts';

/** The site's drafts (open, delete) and templates (start from one, save this message as one, delete). */
export function DraftsPanel({ keeping, title }: { keeping: DraftKeeping; title: string }) {
  const drafts = keeping.library.filter((entry) => entry.kind === 'draft');
  const templates = keeping.library.filter((entry) => entry.kind === 'template');
  const [templateName, setTemplateName] = useState('');
  const [chosen, setChosen] = useState('');
  const template = templates.find((entry) => entry.draftId === chosen) ?? templates[0];
  return (
    <section className="card drafts" aria-labelledby="drafts-heading">
      <h2 id="drafts-heading">Drafts and templates</h2>
      <p className="muted" role="status" data-draft-status={keeping.draftId ?? ''}>
        {keeping.status ||
          (keeping.draftId ? 'This message is a draft, saved as you type.' : 'A message is kept as a draft as soon as you type.')}
      </p>
      {drafts.length > 0 && (
        <ul className="draft-list" aria-label="Drafts">
          {drafts.map((entry) => {
            const name = entry.name || 'Untitled';
            return (
              <li key={entry.draftId} data-draft-id={entry.draftId} aria-current={entry.draftId === keeping.draftId ? 'true' : undefined}>
                <span className="draft-name">{name}</span>{' '}
                <small className="muted">
                  {entry.savedBy}, <Time value={entry.updatedAt} />
                </small>
                <span className="draft-buttons">
                  {entry.draftId !== keeping.draftId && (
                    <button type="button" className="secondary small" aria-label={`Open draft ${name}`} onClick={() => keeping.open(entry)}>
                      Open
                    </button>
                  )}
                  <ConfirmDelete name={name} label={`Delete draft ${name}`} onConfirm={() => keeping.remove(entry)} />
                </span>
              </li>
            );
          })}
        </ul>
      )}
      <div className="field-row">
        {templates.length > 0 && (
          <div className="field">
            <label htmlFor="template-choice">Template</label>
            <select id="template-choice" value={template?.draftId ?? ''} onChange={(event) => setChosen(event.target.value)}>
              {templates.map((entry) => (
                <option key={entry.draftId} value={entry.draftId}>
                  {entry.name}
                </option>
              ))}
            </select>
            <div className="buttons">
              <button type="button" className="secondary small" onClick={() => template && keeping.startFrom(template)}>
                Start from this template
              </button>
              {template && (
                <ConfirmDelete name={`template ${template.name}`} text="Delete template" onConfirm={() => keeping.remove(template)} />
              )}
            </div>
          </div>
        )}
        <div className="field">
          <label htmlFor="template-name">Template name</label>
          <input
            id="template-name"
            value={templateName}
            placeholder={title.trim() || 'Template name'}
            onChange={(event) => setTemplateName(event.target.value)}
          />
          <div className="buttons">
            <button
              type="button"
              className="secondary small"
              disabled={!(templateName.trim() || title.trim())}
              onClick={() => {
                void keeping.saveAsTemplate((templateName.trim() || title.trim()).slice(0, 100));
                setTemplateName('');
              }}
            >
              Save as template
            </button>
          </div>
        </div>
      </div>
    </section>
  );
}
