import type { ReactNode } from 'react';

/** A labelled form control with its hint, or its problem instead once there is one. */
export function Field(props: { id: string; label: string; problem?: string; hint?: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      {props.children}
      {props.hint && !props.problem && (
        <small id={`${props.id}-hint`} className="muted">
          {props.hint}
        </small>
      )}
      {props.problem && (
        <small id={`${props.id}-problem`} className="error">
          {props.problem}
        </small>
      )}
    </div>
  );
}
