import { useEffect, useRef, useState } from 'react';
import type { ConditionCheckReply } from '../../contract/conditions.ts';
import type { SiteApi } from './api.ts';

/** How long typing pauses before the provider checks the condition. */
const CHECK_DELAY_MS = 250;

export type ConditionCheckState =
  { kind: 'empty' } | { kind: 'checking' } | { kind: 'checked'; reply: ConditionCheckReply } | { kind: 'unavailable'; message: string };

/**
 * The provider's verdict on a condition as it is typed (POST .../conditions/check, the compiler `push-kit build`
 * uses), asked once typing pauses; an answer for text that has changed since is dropped.
 */
export function useConditionCheck(api: SiteApi, source: string, onError: (error: unknown) => string): ConditionCheckState {
  const [state, setState] = useState<{ source: string; check: ConditionCheckState }>({ source: '', check: { kind: 'empty' } });
  // the latest handler, without asking again each time the caller renders a new one
  const describeFailure = useRef(onError);
  describeFailure.current = onError;
  useEffect(() => {
    if (!source.trim()) return;
    let live = true;
    const timer = setTimeout(() => {
      api.checkCondition(source).then(
        (reply) => live && setState({ source, check: { kind: 'checked', reply } }),
        (failure: unknown) => live && setState({ source, check: { kind: 'unavailable', message: describeFailure.current(failure) } }),
      );
    }, CHECK_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, source]);
  if (!source.trim()) return { kind: 'empty' };
  return state.source === source ? state.check : { kind: 'checking' };
}
