import { useEffect, useRef, useState } from 'react';
import type { ConditionCheckReply } from '../../contract/conditions.ts';
import type { SiteApi } from './api.ts';

/** How long typing pauses before the provider checks the condition. */
const CHECK_DELAY_MS = 250;

export type RuleCheckState<Reply> =
  { kind: 'empty' } | { kind: 'checking' } | { kind: 'checked'; reply: Reply } | { kind: 'unavailable'; message: string };

export type ConditionCheckState = RuleCheckState<ConditionCheckReply>;

/**
 * The provider's verdict on a rule as it is typed, asked once typing pauses; an answer for text that has
 * changed since is dropped. `ask` is the provider's check: a browser-side condition's (POST .../conditions/check,
 * the compiler `push-kit build` uses) or an audience rule's (POST .../audiences/check, which counts it too).
 */
export function useRuleCheck<Reply>(
  ask: (source: string) => Promise<Reply>,
  source: string,
  onError: (error: unknown) => string,
): RuleCheckState<Reply> {
  const [state, setState] = useState<{ source: string; check: RuleCheckState<Reply> }>({ source: '', check: { kind: 'empty' } });
  // the latest handler, without asking again each time the caller renders a new one
  const describeFailure = useRef(onError);
  describeFailure.current = onError;
  useEffect(() => {
    if (!source.trim()) return;
    let live = true;
    const timer = setTimeout(() => {
      ask(source).then(
        (reply) => live && setState({ source, check: { kind: 'checked', reply } }),
        (failure: unknown) => live && setState({ source, check: { kind: 'unavailable', message: describeFailure.current(failure) } }),
      );
    }, CHECK_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [ask, source]);
  if (!source.trim()) return { kind: 'empty' };
  return state.source === source ? state.check : { kind: 'checking' };
}

/** A browser-side segment condition checked as it is typed. */
export function useConditionCheck(api: SiteApi, source: string, onError: (error: unknown) => string): ConditionCheckState {
  return useRuleCheck(api.checkCondition, source, onError);
}
