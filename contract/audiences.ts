// Audiences: server-side segments whose rule reads what the provider stores (language, browser, time zone,
// tags, subscribed date, last seen, clicks, deliveries, automated messages), in the condition language of
// docs/conditions.md, counted and usable at once. The owner API's wire types: /api/v1/sites/:name/audiences.
import type { ConditionError } from './conditions.ts';

/** An audience id (`pro-plan`, `german-speakers`): what `push-kit send --audience` and a campaign's `audience` name. */
export const AUDIENCE_ID_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;
export const AUDIENCE_ID_RULE = 'must be 1 to 40 letters, digits, "_" or "-"';
export const AUDIENCE_NAME_MAX_LENGTH = 100;

export type AudienceValueType = 'string' | 'number' | 'boolean';

/** A variable an audience rule reads; `name` ends in `.` for a family (`tag.plan`, `clicked.12`). */
export interface AudienceVariable {
  name: string;
  type: AudienceValueType;
  description: string;
  example: string;
}

/** The variables of an audience rule, as the dashboard lists them beside the rule being typed. */
export const AUDIENCE_VARIABLES: readonly AudienceVariable[] = [
  { name: 'language', type: 'string', description: "the browser's language tag as synced", example: 'language startsWith "de"' },
  {
    name: 'browser',
    type: 'string',
    description: 'chrome, firefox, edge, opera, safari, samsung, uc or other',
    example: 'browser == "firefox"',
  },
  { name: 'timeZone', type: 'string', description: "the browser's IANA time zone", example: 'timeZone == "Europe/Berlin"' },
  {
    name: 'country',
    type: 'string',
    description: 'ISO country code read from the time zone (empty when unknown)',
    example: 'country == "DE"',
  },
  { name: 'tag.', type: 'string', description: 'a tag set by pushkit.tag or an import', example: 'tag.plan == "pro"' },
  { name: 'segment.', type: 'boolean', description: 'member of the stored segment with this sid', example: 'segment.newsletter' },
  {
    name: 'subscribedDaysAgo',
    type: 'number',
    description: 'whole days since the subscriber subscribed',
    example: 'subscribedDaysAgo <= 7',
  },
  {
    name: 'lastSeenDaysAgo',
    type: 'number',
    description: "whole days since the subscriber's browser last synced",
    example: 'lastSeenDaysAgo >= 30',
  },
  { name: 'clicked.', type: 'boolean', description: 'clicked the campaign with this number', example: 'clicked.12' },
  {
    name: 'delivered.',
    type: 'boolean',
    description: 'was delivered the campaign with this number',
    example: 'delivered.12 and not clicked.12',
  },
  { name: 'automation.', type: 'boolean', description: 'was delivered a message of this automation', example: 'not automation.welcome' },
];

/** The owner's count of an audience: who matches, and who of them a campaign would reach. */
export interface AudienceCount {
  /** Subscribers the rule matches, whatever their status. */
  members: number;
  /** Of them, those a campaign reaches now: subscribed, with a push endpoint. */
  reachable: number;
}

export interface Audience extends AudienceCount {
  id: string;
  name: string;
  condition: string;
  createdAt: string;
}

/** POST sites/:name/audiences */
export interface AudienceRequest {
  id: string;
  name?: string;
  condition: string;
}

/** POST sites/:name/audiences/check: a rule as it is typed. */
export interface AudienceCheckRequest {
  condition: string;
}

export type AudienceCheckReply = ({ ok: true } & AudienceCount) | { ok: false; error: Pick<ConditionError, 'code' | 'message' | 'column'> };

export interface AudiencesReply {
  status: 'success';
  audiences: Audience[];
  variables: AudienceVariable[];
}

export interface AudienceCreatedReply {
  status: 'success';
  audience: Audience;
}
