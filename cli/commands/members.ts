// `push-kit members ...`: a site's team (docs/members.md). Through the running provider that holds the database (its
// provider file's token acts as an owner), with --key an owner member's key, or straight on the database.
//   members [list]                                   the members, their roles, who has no key yet
//   members add --name N --role R [--link]           a new member: their key printed once, or a one-time sign-in link
//   members role ID --role R                         a new role
//   members remove ID                                removed: their key stops working at once
//   members key ID                                   a new key for the member (printed once); the old one stops working
import { cliError, fromServerError } from '../errors.ts';
import { configuredSite } from '../configured-site.ts';
import { ownerApiClient, type OwnerApiCall } from '../owner-api-client.ts';
import { openRouteDatabase, routeOf } from '../provider-route.ts';
import type { Database } from '../../server/db/database.ts';
import { COMMAND_LINE_MEMBER, recordAudit } from '../../server/http/audit-log.ts';
import {
  addSiteMember,
  memberName,
  newSiteMemberKey,
  removeSiteMember,
  setSiteMemberRole,
  siteMembers,
} from '../../server/members/index.ts';
import type { HostedSite } from '../../server/sites.ts';
import {
  ROLES,
  type Member,
  type MemberCreatedReply,
  type MemberKeyReply,
  type MemberReply,
  type MembersReply,
  type Role,
} from '../../contract/members.ts';

export const MEMBER_ACTIONS = ['list', 'add', 'role', 'remove', 'key'] as const;
type Action = (typeof MEMBER_ACTIONS)[number];

export interface MembersOptions {
  site: string;
  name?: string;
  role?: string;
  link?: boolean;
  database?: string;
  sites?: string[];
  key?: string;
  provider?: string;
}

interface Backend {
  list(): Promise<Member[]>;
  add(name: string, role: Role, link: boolean): Promise<{ member: Member; key: string | null; signInToken: string | null }>;
  role(id: string, role: Role): Promise<Member>;
  remove(id: string): Promise<void>;
  key(id: string): Promise<{ member: Member; key: string }>;
}

function providerBackend(call: OwnerApiCall): Backend {
  return {
    list: async () => (await call<MembersReply>('/members')).members,
    add: (name, role, link) => call<MemberCreatedReply>('/members', { method: 'POST', body: { name, role, ...(link ? { link } : {}) } }),
    role: async (id, role) => (await call<MemberReply>(`/members/${encodeURIComponent(id)}`, { method: 'PATCH', body: { role } })).member,
    remove: async (id) => {
      await call(`/members/${encodeURIComponent(id)}`, { method: 'DELETE' });
    },
    key: (id) => call<MemberKeyReply>(`/members/${encodeURIComponent(id)}/key`, { method: 'POST' }),
  };
}

/** On the database, each change in the audit log as the command line's. */
function databaseBackend(db: Database, site: HostedSite): Backend {
  const audit = (action: string, target: string) => recordAudit(db, site.hash, COMMAND_LINE_MEMBER, action, target);
  return {
    list: () => siteMembers(db, site),
    add: async (name, role, link) => {
      const created = await addSiteMember(db, site, { name, role, link });
      await audit('member.add', `${created.member.memberId} (${name}, ${role})`);
      return created;
    },
    role: async (id, role) => {
      const member = await setSiteMemberRole(db, site, id, role);
      await audit('member.role', `${id} (${member.name}) to ${role}`);
      return member;
    },
    remove: async (id) => {
      await removeSiteMember(db, site, id);
      await audit('member.remove', `id=${id}`);
    },
    key: async (id) => {
      const made = await newSiteMemberKey(db, site, id);
      await audit('member.key', `id=${id}`);
      return made;
    },
  };
}

function roleOf(value: string | undefined): Role {
  if (value === undefined || !(ROLES as readonly string[]).includes(value)) {
    throw cliError('E_ARGUMENT', { option: 'role', rule: `must be one of ${ROLES.join(', ')} (docs/members.md says what each may do)` });
  }
  return value as Role;
}

function nameOf(value: string | undefined): string {
  const parsed = memberName.safeParse(value ?? '');
  if (!parsed.success) throw cliError('E_ARGUMENT', { option: 'name', rule: parsed.error.issues[0]!.message });
  return parsed.data;
}

function idOf(action: Action, id: string | undefined): string {
  if (!id || !/^[A-Za-z0-9_-]{1,40}$/.test(id)) {
    throw cliError('E_ARGUMENT', { option: action, rule: 'needs the member id, as push-kit members list shows it' });
  }
  return id;
}

function memberLine(member: Member): string {
  const state = member.hasKey ? 'has a key' : `sign-in link unused, works until ${member.linkExpiresAt ?? '?'}`;
  return `${member.memberId.padEnd(12)} ${member.role.padEnd(7)} ${member.name}  (${state}; added ${member.createdAt})`;
}

async function run(backend: Backend, action: Action, id: string | undefined, options: MembersOptions, dashboard: string): Promise<void> {
  switch (action) {
    case 'list': {
      const members = await backend.list();
      for (const member of members) console.log(memberLine(member));
      if (members.length === 0) console.log(`${options.site}: no members yet (push-kit members add --name ... --role owner)`);
      return;
    }
    case 'add': {
      const { member, key, signInToken } = await backend.add(nameOf(options.name), roleOf(options.role), options.link === true);
      console.log(
        `${member.name} added to ${options.site} as ${member.role === 'viewer' ? 'a' : 'an'} ${member.role} (member ${member.memberId})`,
      );
      if (key) console.log(`their key (shown once, give it to ${member.name} only; it signs in to the dashboard): ${key}`);
      if (signInToken) {
        console.log(`their sign-in link (works once, until ${member.linkExpiresAt}; give it to ${member.name} only):`);
        console.log(`  ${dashboard}#sign-in=${signInToken}`);
      }
      return;
    }
    case 'role': {
      const member = await backend.role(idOf(action, id), roleOf(options.role));
      console.log(`${member.name} (${member.memberId}) is now ${member.role === 'viewer' ? 'a' : 'an'} ${member.role}`);
      return;
    }
    case 'remove':
      await backend.remove(idOf(action, id));
      console.log(`member ${id} removed from ${options.site}: their key no longer opens anything`);
      return;
    case 'key': {
      const { member, key } = await backend.key(idOf(action, id));
      console.log(`new key of ${member.name} (${member.memberId}), shown once; the previous one no longer works: ${key}`);
      return;
    }
  }
}

export async function runMembers(action: string | undefined, id: string | undefined, options: MembersOptions): Promise<number> {
  const chosen = (action ?? 'list') as Action;
  if (!MEMBER_ACTIONS.includes(chosen))
    throw cliError('E_ARGUMENT', { option: 'action', rule: `must be one of ${MEMBER_ACTIONS.join(', ')}` });
  // what the command line can tell wrong before opening anything
  if (chosen === 'add') nameOf(options.name);
  if (chosen === 'add' || chosen === 'role') roleOf(options.role);
  if (chosen !== 'list' && chosen !== 'add') idOf(chosen, id);
  const configured = () => configuredSite(options.site, options.sites);
  const route = await routeOf(options.site, options, async () => (await configured()).config.serverSyncUrl);
  if (route.via === 'provider') {
    await run(providerBackend(ownerApiClient(route.url, options.site, route.key)), chosen, id, options, dashboardOf(route.url));
    return 0;
  }
  const site = await configured();
  const db = await openRouteDatabase(route, `push-kit members ... --site ${site.name}`);
  try {
    await run(databaseBackend(db, site), chosen, id, options, dashboardOf(site.config.serverSyncUrl));
  } catch (error) {
    fromServerError(error);
  } finally {
    await db.close();
  }
  return 0;
}

/** The provider's dashboard, where a sign-in link goes. */
function dashboardOf(provider: string): string {
  return `${provider.replace(/\/+$/, '')}/dashboard/`;
}
