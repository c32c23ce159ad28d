// An audience rule (docs/audiences.md) compiled to a parameterised SQL condition over `subscribers s`. The
// rule is parsed by the condition language's own parser (compiler/condition-parser.ts), so it reads and fails
// as a browser-side segment condition does; here its variables are what the provider stores. No text of the
// rule reaches the SQL: variable names pick fixed fragments, and every string, number and name in it is a
// bound parameter.
import { ConditionFailure, conditionFailure } from '../../compiler/condition-failure.ts';
import { parseCondition, type ConditionNode } from '../../compiler/condition-parser.ts';
import type { ConditionError } from '../../contract/conditions.ts';
import type { AudienceValueType } from '../../contract/audiences.ts';
import { AUTOMATION_KINDS } from '../../contract/automations.ts';
import { CAMPAIGN_ID_PATTERN } from '../../contract/ids.ts';
import { zoneCountries, zonesOfCountry } from './zone-countries.ts';

/**
 * `value`: a literal's; `country`: the country variable, which `==` and `!=` against a literal read by its zones, and
 * whose table lookup (`lazy`, two array parameters) is written only where it is used.
 */
type Emitted = { sql: string; type: AudienceValueType; value?: string | number | boolean; country?: true; lazy?: () => string };

export type AudienceSql = { ok: true; sql: string; params: unknown[] } | { ok: false; error: ConditionError };

const DAY_SECONDS = 86_400;
const daysSince = (column: string) => `floor(extract(epoch FROM (now() - ${column})) / ${DAY_SECONDS})`;

/** Plain columns of the subscriber. */
const COLUMNS: Record<string, Emitted> = {
  language: { sql: `coalesce(s.language, '')`, type: 'string' },
  browser: { sql: `coalesce(s.browser_type, '')`, type: 'string' },
  timeZone: { sql: `coalesce(s.timezone, '')`, type: 'string' },
  subscribedDaysAgo: { sql: daysSince('s.created_at'), type: 'number' },
  lastSeenDaysAgo: { sql: daysSince('coalesce(s.last_sync_at, s.created_at)'), type: 'number' },
};

/**
 * The rule as `(...)`, a boolean SQL expression over the subscriber row `s`, its placeholders numbered from
 * `firstParam`; or the first error of the rule with its column, as the condition compiler reports it.
 */
export function compileAudienceRule(source: string, firstParam = 1): AudienceSql {
  const params: unknown[] = [];
  const param = (value: unknown, cast: string) => {
    params.push(value);
    return `$${firstParam + params.length - 1}::${cast}`;
  };

  function variable(name: string, column: number): Emitted {
    if (Object.hasOwn(COLUMNS, name)) return COLUMNS[name]!;
    if (name === 'country') {
      const { zones, countries } = zoneCountries();
      return {
        sql: '',
        lazy: () => `coalesce((SELECT z.country FROM unnest(${param(zones, 'text[]')}, ${param(countries, 'text[]')}) AS z (zone, country)
                WHERE z.zone = s.timezone LIMIT 1), '')`,
        type: 'string',
        country: true,
      };
    }
    const dot = name.indexOf('.');
    const head = dot < 0 ? name : name.slice(0, dot);
    const key = dot < 0 ? '' : name.slice(dot + 1);
    const needsKey = (example: string) => {
      if (!key) throw conditionFailure('E_CONDITION_NAME_REQUIRED', column, { map: head, example });
    };
    const campaign = () => {
      if (!CAMPAIGN_ID_PATTERN.test(key)) throw conditionFailure('E_CONDITION_CAMPAIGN_NUMBER', column, { map: head });
      return param(key, 'bigint');
    };
    switch (head) {
      case 'tag':
        needsKey('plan');
        return {
          sql: `coalesce((SELECT t.value FROM subscriber_tags t WHERE t.subscriber_id = s.id AND t.key = ${param(key, 'text')}), '')`,
          type: 'string',
        };
      case 'segment':
        needsKey('newsletter');
        return {
          sql: `EXISTS (SELECT 1 FROM segment_memberships m JOIN segments g ON g.id = m.segment_id
                 WHERE m.subscriber_id = s.id AND g.site_hash = s.site_hash AND g.sid = ${param(key, 'text')})`,
          type: 'boolean',
        };
      case 'clicked':
        return {
          sql: `EXISTS (SELECT 1 FROM events e WHERE e.subscriber_id = s.id AND e.campaign_id = ${campaign()} AND e.kind = 'clicked')`,
          type: 'boolean',
        };
      case 'delivered':
        return {
          sql: `EXISTS (SELECT 1 FROM deliveries d WHERE d.subscriber_id = s.id AND d.campaign_id = ${campaign()} AND d.status = 'delivered')`,
          type: 'boolean',
        };
      case 'automation':
        needsKey('welcome');
        if (!(AUTOMATION_KINDS as readonly string[]).includes(key)) {
          throw conditionFailure('E_CONDITION_UNKNOWN_AUTOMATION', column, { name: key, known: AUTOMATION_KINDS.join(', ') });
        }
        return {
          sql: `EXISTS (SELECT 1 FROM campaigns c JOIN deliveries d ON d.campaign_id = c.id
                 WHERE c.site_hash = s.site_hash AND c.automation = ${param(key, 'text')} AND d.subscriber_id = s.id
                   AND d.status = 'delivered')`,
          type: 'boolean',
        };
      default:
        throw conditionFailure('E_CONDITION_UNKNOWN_VARIABLE', column, { name });
    }
  }

  /** A value as another type, as the browser-side predicate converts it (compiler/condition-codegen.ts). */
  function as(value: Emitted, type: AudienceValueType): string {
    if (value.value !== undefined) {
      const literal = value.value;
      if (type === 'string') return param(String(literal), 'text');
      if (type === 'number') return param(Number(literal) || 0, 'numeric');
      return param(typeof literal === 'string' ? literal !== '' : typeof literal === 'number' ? literal !== 0 : literal, 'boolean');
    }
    const sql = value.lazy ? value.lazy() : value.sql;
    if (value.type === type) return sql;
    if (type === 'boolean') return value.type === 'string' ? `(${sql} <> '')` : `(${sql} <> 0)`;
    if (type === 'number') {
      return value.type === 'string'
        ? `(CASE WHEN ${sql} ~ '^\\s*-?[0-9]+(\\.[0-9]+)?\\s*$' THEN trim(${sql})::numeric ELSE 0 END)`
        : `(CASE WHEN ${sql} THEN 1 ELSE 0 END)`;
    }
    return value.type === 'number' ? `(${sql})::text` : `(CASE WHEN ${sql} THEN 'true' ELSE 'false' END)`;
  }

  function emit(node: ConditionNode): Emitted {
    switch (node.type) {
      case 'string':
      case 'number':
      case 'boolean':
        return { sql: '', type: node.type, value: node.value };
      case 'variable':
        return variable(node.name, node.column);
      case 'not':
        return { sql: `(NOT ${asCondition(node.operand)})`, type: 'boolean' };
      case 'and':
      case 'or':
        return { sql: `(${asCondition(node.left)} ${node.type.toUpperCase()} ${asCondition(node.right)})`, type: 'boolean' };
      case 'compare':
        return { sql: compare(node), type: 'boolean' };
    }
  }

  const asCondition = (node: ConditionNode) => as(emit(node), 'boolean');

  function compare(node: Extract<ConditionNode, { type: 'compare' }>): string {
    const { operator } = node;
    if (operator === 'matches') throw conditionFailure('E_CONDITION_NOT_IN_AUDIENCE', node.column, { operator });
    const left = emit(node.left);
    const right = emit(node.right);
    if (operator === 'contains' || operator === 'startsWith' || operator === 'endsWith') {
      for (const side of [left, right]) {
        if (side.type === 'boolean') throw conditionFailure('E_CONDITION_NEEDS_TEXT', node.column, { operator });
      }
      const [a, b] = [as(left, 'string'), as(right, 'string')];
      if (operator === 'contains') return `(strpos(${a}, ${b}) > 0)`;
      return operator === 'startsWith' ? `(left(${a}, length(${b})) = ${b})` : `(right(${a}, length(${b})) = ${b})`;
    }
    const type: AudienceValueType =
      left.type === 'boolean' || right.type === 'boolean'
        ? 'boolean'
        : left.type === 'number' || right.type === 'number'
          ? 'number'
          : 'string';
    if (type === 'boolean' && operator !== '==' && operator !== '!=') {
      throw conditionFailure('E_CONDITION_BOOLEAN_ORDER', node.column, { operator });
    }
    // country == "DE" as the subscriber's zone among Germany's: an index-friendly test, not a table lookup per row
    const [variable, literal] = left.country ? [left, right] : [right, left];
    if (variable.country && typeof literal.value === 'string' && literal.value !== '' && (operator === '==' || operator === '!=')) {
      const inCountry = `coalesce(s.timezone = ANY(${param(zonesOfCountry(literal.value), 'text[]')}), false)`;
      return operator === '==' ? `(${inCountry})` : `(NOT ${inCountry})`;
    }
    const sqlOperator = operator === '==' ? '=' : operator === '!=' ? '<>' : operator;
    // text in code-point order, as the browser compares strings, whatever the database's collation
    const collate = type === 'string' && sqlOperator !== '=' && sqlOperator !== '<>' ? ' COLLATE "C"' : '';
    return `(${as(left, type)}${collate} ${sqlOperator} ${as(right, type)}${collate})`;
  }

  try {
    const sql = asCondition(parseCondition(source));
    return { ok: true, sql, params };
  } catch (error) {
    if (error instanceof ConditionFailure) return { ok: false, error: error.errorOf(source) };
    throw error;
  }
}
