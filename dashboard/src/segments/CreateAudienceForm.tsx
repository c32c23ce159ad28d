import { useState, type FormEvent } from 'react';
import { AUDIENCE_ID_PATTERN, AUDIENCE_NAME_MAX_LENGTH, type AudienceVariable } from '../../../contract/audiences.ts';
import type { SiteApi } from '../api.ts';
import { useRuleCheck } from '../useConditionCheck.ts';
import { ConditionCheck } from './ConditionCheck.tsx';
import { describeReach } from './reach.ts';

/**
 * A new audience: an id, a name and a rule over stored data, checked and counted by the provider as it is
 * typed, with the variables a rule may read listed beside it (a click puts one into the rule).
 */
export function CreateAudienceForm(props: {
  api: SiteApi;
  variables: AudienceVariable[];
  onError(error: unknown): string;
  onCreated(id: string): void;
}) {
  const { api, onError } = props;
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [rule, setRule] = useState('');
  const [createError, setCreateError] = useState<string | null>(null);
  const check = useRuleCheck(api.checkAudience, rule, onError);
  const ruleOk = check.kind === 'checked' && check.reply.ok;
  const idOk = AUDIENCE_ID_PATTERN.test(id);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setCreateError(null);
    if (!idOk) return setCreateError('The audience id is 1 to 40 letters, digits, "_" or "-".');
    if (!rule.trim()) return setCreateError('Write the rule: who is in the audience.');
    try {
      const audience = await api.createAudience({ id, name: name.trim() || undefined, condition: rule.trim() });
      setId('');
      setName('');
      setRule('');
      props.onCreated(audience.id);
    } catch (failure) {
      setCreateError(onError(failure));
    }
  };

  return (
    <form className="card" onSubmit={create} noValidate aria-labelledby="create-audience-title">
      <h3 id="create-audience-title">Create an audience</h3>
      <div className="field">
        <label htmlFor="audience-id">Audience id</label>
        <input
          id="audience-id"
          value={id}
          maxLength={40}
          spellCheck={false}
          onChange={(event) => setId(event.target.value)}
          aria-invalid={id !== '' && !idOk}
          aria-describedby="audience-id-hint"
        />
        <small id="audience-id-hint" className={id !== '' && !idOk ? 'error' : 'muted'}>
          1 to 40 letters, digits, "_" or "-"; a campaign names it (push-kit send --audience).
        </small>
      </div>
      <div className="field">
        <label htmlFor="audience-name">Name (optional)</label>
        <input id="audience-name" value={name} maxLength={AUDIENCE_NAME_MAX_LENGTH} onChange={(event) => setName(event.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="audience-rule">Rule</label>
        <textarea
          id="audience-rule"
          rows={3}
          spellCheck={false}
          value={rule}
          onChange={(event) => setRule(event.target.value)}
          aria-invalid={check.kind === 'checked' && !check.reply.ok}
          aria-describedby="audience-rule-status"
        />
        <ConditionCheck
          source={rule}
          check={check}
          id="audience-rule-status"
          empty={<>Example: tag.plan == "pro" and subscribedDaysAgo &lt;= 7</>}
          valid={(reply) => (
            <span data-members={reply.members} data-reachable={reply.reachable}>
              Valid: {describeReach(reply.members, reply.reachable)}.
            </span>
          )}
        />
      </div>
      <details className="variables">
        <summary>What a rule can read</summary>
        <ul>
          {props.variables.map((variable) => (
            <li key={variable.name}>
              <button
                type="button"
                className="link-button"
                onClick={() => setRule((current) => (current.trim() ? `${current.trim()} and ${variable.example}` : variable.example))}
              >
                <code>{variable.name.endsWith('.') ? `${variable.name}NAME` : variable.name}</code>
              </button>{' '}
              ({variable.type}) {variable.description}; e.g. <code>{variable.example}</code>
            </li>
          ))}
        </ul>
        <p className="muted">
          Compare with == != &lt; &lt;= &gt; &gt;= contains startsWith endsWith; combine with and, or, not and parentheses; text in double
          quotes.
        </p>
      </details>
      {createError && (
        <p className="error" role="alert">
          {createError}
        </p>
      )}
      <div className="buttons">
        <button type="submit" disabled={!ruleOk}>
          Create audience
        </button>
      </div>
    </form>
  );
}
