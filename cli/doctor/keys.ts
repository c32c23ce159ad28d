// The provider from the inside (the doctor runs in the provider's folder): the site's VAPID key file exists, is
// private (mode 0600, owned by this user) and is the config's key; the VAPID subject is one Apple's push service
// accepts; the token the sender signs expires within 24 h by this machine's and the provider's clock; and the
// state folder is private as `push-kit serve` requires (server/state-privacy.ts).
import { createPublicKey, verify } from 'node:crypto';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAcceptedVapidSubject, vapidSubjectFor } from '../../config/vapid-subject.ts';
import { isServerError } from '../../server/errors.ts';
import { VapidAuthorizer, vapidKeyPairProblem } from '../../server/push/vapid.ts';
import { readVapidKeyFile, type VapidKeyPair } from '../../server/push/vapid-keys.ts';
import { vapidKeyFile } from '../../server/state-paths.ts';
import { requirePrivateState } from '../../server/state-privacy.ts';
import { finding, type DoctorCheck, type DoctorContext } from './check.ts';

/** RFC 8292 and Apple: a token's `exp` at most 24 hours ahead. */
const MAX_TOKEN_LIFETIME_S = 24 * 60 * 60;
/** The push service whose rules are the strictest (Apple's), as the token's audience. */
const APPLE_PUSH = 'https://web.push.apple.com';

/** The key pair when the file is there, private, this user's and readable; else the findings of why not. */
async function checkKeyFile(context: DoctorContext): Promise<{ checks: DoctorCheck[]; keys?: VapidKeyPair }> {
  const { site } = context;
  const file = vapidKeyFile(context.stateDir, site);
  let found;
  try {
    found = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      checks: [
        code === 'ENOENT' ? finding('KEY_FILE_MISSING', site, { file }) : finding('KEY_FILE_READ', site, { file, reason: String(code) }),
      ],
    };
  }
  const checks: DoctorCheck[] = [];
  const mode = found.mode & 0o777;
  if ((mode & 0o077) !== 0) checks.push(finding('KEY_FILE_OPEN', site, { file, mode: mode.toString(8).padStart(4, '0') }));
  const uid = process.getuid?.();
  if (uid !== undefined && found.uid !== uid) checks.push(finding('KEY_FILE_OWNER', site, { file, owner: found.uid, user: uid }));
  let keys: VapidKeyPair;
  try {
    keys = await readVapidKeyFile(file);
  } catch (error) {
    return { checks: [...checks, finding('KEY_FILE_READ', site, { file, reason: (error as Error).message })] };
  }
  if (checks.length === 0) checks.push(finding('KEY_FILE_OK', site, { file }));
  return { checks, keys };
}

function checkKeyMatches(context: DoctorContext, keys: VapidKeyPair): DoctorCheck {
  const { site, config } = context;
  const file = vapidKeyFile(context.stateDir, site);
  const problem = vapidKeyPairProblem(keys);
  if (problem !== undefined) return finding('KEY_PAIR_BROKEN', site, { file, problem });
  if (keys.publicKey !== config.vapidPublicKey)
    return finding('KEY_MISMATCH', site, { file, config: context.configFile, fileKey: keys.publicKey });
  return finding('KEY_OK', site, { file });
}

/** The `exp` (seconds) of the token the sender signs with these keys now, once its signature checks out. */
function signedTokenExpiry(keys: VapidKeyPair, subject: string, now: number): number {
  const header = new VapidAuthorizer(keys, subject, () => now).authorizationFor(`${APPLE_PUSH}/doctor`);
  const jwt = /t=([^,\s]+)/.exec(header)![1]!;
  const [head, body, signature] = jwt.split('.') as [string, string, string];
  const point = Buffer.from(keys.publicKey, 'base64url');
  const publicKey = createPublicKey({
    format: 'jwk',
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
  });
  if (!verify('sha256', Buffer.from(`${head}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')))
    throw new Error('the signature does not verify with the public key');
  return (JSON.parse(Buffer.from(body, 'base64url').toString()) as { exp: number }).exp;
}

function checkToken(context: DoctorContext, keys: VapidKeyPair, subject: string, providerNow: number | undefined): DoctorCheck {
  const { site } = context;
  const localNow = Date.now();
  // the provider signs by its own clock; the push service reads `exp` by its own (taken to be this machine's)
  const signingNow = providerNow ?? localNow;
  let exp: number;
  try {
    exp = signedTokenExpiry(keys, isAcceptedVapidSubject(subject) ? subject : 'mailto:doctor@push-kit.dev', signingNow);
  } catch (error) {
    return finding('TOKEN_UNSIGNABLE', site, { reason: (error as Error).message });
  }
  const ahead = exp - Math.floor(localNow / 1000);
  const clock = providerNow === undefined ? "this machine's clock" : "the provider's clock";
  if (ahead <= 0 || ahead > MAX_TOKEN_LIFETIME_S)
    return finding('TOKEN_EXPIRY', site, { hours: Math.round((ahead / 3600) * 10) / 10, clock });
  return finding('TOKEN_OK', site, { hours: Math.round((ahead / 3600) * 10) / 10, clock });
}

async function checkState(context: DoctorContext): Promise<DoctorCheck> {
  const { site, stateDir } = context;
  if (!existsSync(stateDir)) return finding('STATE_ABSENT', site, { dir: stateDir });
  try {
    await requirePrivateState(stateDir);
  } catch (error) {
    if (isServerError(error, 'E_STATE_NOT_PRIVATE')) {
      const { path, mode, fix } = error.details;
      return finding('STATE_OPEN', site, { path, mode, fix });
    }
    return finding('STATE_READ', site, { dir: stateDir, reason: (error as Error).message });
  }
  return finding('STATE_OK', site, { dir: stateDir });
}

/** The key file, the key, the subject, the token's expiry and the state folder. */
export async function keyChecks(context: DoctorContext, providerNow: number | undefined): Promise<DoctorCheck[]> {
  const { site, config } = context;
  const subject = vapidSubjectFor(config);
  const checks: DoctorCheck[] = [];
  const file = await checkKeyFile(context);
  checks.push(...file.checks);
  if (file.keys) checks.push(checkKeyMatches(context, file.keys));
  checks.push(
    isAcceptedVapidSubject(subject)
      ? finding('SUBJECT_OK', site, { subject })
      : finding('SUBJECT_REFUSED', site, { subject, derived: config.vapidSubject === undefined }),
  );
  if (file.keys && vapidKeyPairProblem(file.keys) === undefined) checks.push(checkToken(context, file.keys, subject, providerNow));
  checks.push(await checkState(context));
  return checks;
}
