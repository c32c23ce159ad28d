// The two-step delete of every list (segments, audiences, a subscriber, feeds, members, webhook endpoints): a
// button, then "Delete X for good" beside "Keep". Keep takes the focus, so a keyboard's next Enter is the safe
// answer; Keep or Escape puts the first button back, focused. The caller holds the buttons' container.
import { useEffect, useRef, useState } from 'react';

export function ConfirmDelete(props: {
  /** What goes, as the confirming button says it: "Delete blog-readers for good". */
  name: string;
  /** "Delete" (the default) or "Remove" (what stays elsewhere: a feed, a member, an endpoint). */
  verb?: 'Delete' | 'Remove';
  /** The first button's text, when it says more than the verb ("Delete subscriber"). */
  text?: string;
  /** The first button's accessible name, when a row's button must say whose it is ("Delete segment blog-readers"). */
  label?: string;
  /** Small buttons, as in a table row (the default). */
  small?: boolean;
  onConfirm(): void | Promise<void>;
}) {
  const verb = props.verb ?? 'Delete';
  const size = props.small === false ? '' : ' small';
  const [asking, setAsking] = useState(false);
  const start = useRef<HTMLButtonElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const moved = useRef(false);
  useEffect(() => {
    if (moved.current) (asking ? keep : start).current?.focus();
  }, [asking]);
  const ask = (next: boolean) => {
    moved.current = true;
    setAsking(next);
  };
  const escape = (event: { key: string }) => event.key === 'Escape' && ask(false);

  if (!asking) {
    return (
      <button ref={start} type="button" className={`danger${size}`} aria-label={props.label} onClick={() => ask(true)}>
        {props.text ?? verb}
      </button>
    );
  }
  return (
    <>
      <button
        type="button"
        className={`danger${size}`}
        onKeyDown={escape}
        onClick={() => {
          ask(false);
          void props.onConfirm();
        }}
      >
        {verb} {props.name} for good
      </button>
      <button ref={keep} type="button" className={`secondary${size}`} onKeyDown={escape} onClick={() => ask(false)}>
        Keep
      </button>
    </>
  );
}
