// The site's team (docs/members.md), for owners: each member with their role, a new role, a new key (shown once),
// removal; and a form to add one with a key or a one-time sign-in link. What each role may do is checked by the
// provider on every call; this screen only manages who is who.
import { useState, type FormEvent } from 'react';
import { formatDate, type SiteApi } from '../api.ts';
import { Time } from '../clock/index.ts';
import { ConfirmDelete } from '../ConfirmDelete.tsx';
import { FiguresTable } from '../FiguresTable.tsx';
import { useLoad } from '../useLoad.ts';
import { ROLES, type Member, type Role, type SignedInMember } from '../../../contract/members.ts';

const COLUMNS = [{ heading: 'Name' }, { heading: 'Role' }, { heading: 'Key' }, { heading: 'Added' }, { heading: '' }];

export const ROLE_HELP: Record<Role, string> = {
  viewer: 'figures only: the overview, campaigns, automations and segments; no subscriber records',
  editor: 'sends and cancels campaigns, edits segments and automations, reads subscriber records',
  owner: 'everything: members, keys, webhooks, imports, erasing and exporting subscribers, the audit log',
};

type Shown = { text: string; secret?: string };

export function Members({ api, me, onError }: { api: SiteApi; me: SignedInMember; onError(error: unknown): string }) {
  const members = useLoad(() => api.members(), onError, [api]);
  const [message, setMessage] = useState<Shown | null>(null);

  const act = async (work: () => Promise<Shown>) => {
    setMessage(null);
    try {
      setMessage(await work());
      members.reload();
    } catch (failure) {
      setMessage({ text: onError(failure) });
    }
  };
  const changeRole = (member: Member, role: Role) =>
    act(async () => {
      await api.changeMemberRole(member.memberId, role);
      return { text: `${member.name} is now ${role === 'viewer' ? 'a' : 'an'} ${role}.` };
    });
  const newKey = (member: Member) =>
    act(async () => {
      const reply = await api.newMemberKey(member.memberId);
      return { text: `New key of ${member.name}, shown this once; their previous key no longer works.`, secret: reply.key };
    });
  const remove = (member: Member) =>
    act(async () => {
      await api.removeTeamMember(member.memberId);
      return { text: `${member.name} removed: their key no longer opens anything.` };
    });

  return (
    <div className="screen">
      <h1>Members</h1>
      <div className="columns">
        <section className="card" aria-labelledby="members-title">
          <h2 id="members-title">The team of this site</h2>
          {members.error && (
            <p className="error" role="alert">
              {members.error}
            </p>
          )}
          {message && (
            <div role="status">
              <p>{message.text}</p>
              {message.secret && <code className="snippet">{message.secret}</code>}
            </div>
          )}
          {members.value && (
            <FiguresTable columns={COLUMNS} label="Members">
              {members.value.map((member) => (
                <tr key={member.memberId} data-member={member.memberId}>
                  <td>
                    <strong>{member.name}</strong>
                    {member.memberId === me.memberId && <span className="muted"> (you)</span>}
                    <div className="muted mono">{member.memberId}</div>
                  </td>
                  <td>
                    <select
                      aria-label={`Role of ${member.name}`}
                      value={member.role}
                      onChange={(event) => changeRole(member, event.target.value as Role)}
                    >
                      {ROLES.map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>{member.hasKey ? 'Has a key' : `Sign-in link unused, works until ${formatDate(member.linkExpiresAt)}`}</td>
                  <td>
                    <Time value={member.createdAt} />
                  </td>
                  <td>
                    <span className="buttons">
                      <button type="button" className="secondary small" onClick={() => newKey(member)}>
                        New key
                      </button>
                      <ConfirmDelete verb="Remove" name={member.name} onConfirm={() => remove(member)} />
                    </span>
                  </td>
                </tr>
              ))}
            </FiguresTable>
          )}
        </section>
        <AddMemberForm api={api} onError={onError} onAdded={members.reload} />
      </div>
    </div>
  );
}

function AddMemberForm({ api, onError, onAdded }: { api: SiteApi; onError(error: unknown): string; onAdded(): void }) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [link, setLink] = useState(false);
  const [shown, setShown] = useState<Shown | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setShown(null);
    try {
      const reply = await api.addTeamMember({ name, role, link });
      const secret = reply.key ?? `${window.location.origin}/dashboard/#sign-in=${reply.signInToken}`;
      setShown({
        text: reply.key
          ? `${reply.member.name} added. Their key, shown this once: give it to them only.`
          : `${reply.member.name} added. Their sign-in link works once, until ${formatDate(reply.member.linkExpiresAt)}: give it to them only.`,
        secret,
      });
      setName('');
      onAdded();
    } catch (failure) {
      setShown({ text: onError(failure) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card" onSubmit={submit} aria-labelledby="add-member-title">
      <h2 id="add-member-title">Add a member</h2>
      <label htmlFor="member-name">Name</label>
      <input id="member-name" value={name} maxLength={100} onChange={(event) => setName(event.target.value)} required />
      <label htmlFor="member-role">Role</label>
      <select id="member-role" value={role} onChange={(event) => setRole(event.target.value as Role)}>
        {ROLES.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
      <p className="muted">{ROLE_HELP[role]}</p>
      <label className="checkbox">
        <input type="checkbox" checked={link} onChange={(event) => setLink(event.target.checked)} /> A one-time sign-in link instead of a
        key
      </label>
      {shown && (
        <div role="status">
          <p>{shown.text}</p>
          {shown.secret && <code className="snippet">{shown.secret}</code>}
        </div>
      )}
      <div className="buttons">
        <button type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Add member'}
        </button>
      </div>
    </form>
  );
}
