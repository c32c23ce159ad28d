// Answers -> files: the site config, the VAPID key pair and the owner API key, written all-or-nothing.
import { randomBytes } from 'node:crypto';
import { access, appendFile, chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { ownerKeyFile, STATE_DIR, vapidKeyFile } from '../../server/state-paths.ts';
import { generateVapidKeyPair } from '../../server/push/vapid-keys.ts';
import { hashOwnerKey, newOwnerKey } from '../../server/http/owner-keys.ts';
import { schemaReference } from '../../config/schema-reference.ts';
import { configFromAnswers, randomHash, type WizardAnswers } from './answers.ts';

export interface WrittenSite {
  configFile: string;
  keyFile: string;
  ownerKeyFile: string;
  /** The owner API key in clear; only its SHA-256 is stored, so it is shown once. */
  ownerApiKey: string;
  /** What became of the project's `.gitignore` line for the private state folder. */
  gitignore: GitignoreChange;
}

/** The `.gitignore` line that keeps the private state folder (keys, database) out of git. */
export const GITIGNORE_LINE = `${STATE_DIR}/`;

export type GitignoreChange = { file: string; change: 'created' | 'added' | 'present' };

/** Adds `.push-kit/` to `<dir>/.gitignore` (created when absent) unless a line already ignores the folder. */
export async function ensureGitignored(dir: string): Promise<GitignoreChange> {
  const file = join(dir, '.gitignore');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await writeFile(file, `${GITIGNORE_LINE}\n`);
    return { file, change: 'created' };
  }
  const ignored = new Set([STATE_DIR, `/${STATE_DIR}`, GITIGNORE_LINE, `/${GITIGNORE_LINE}`]);
  if (text.split(/\r?\n/).some((line) => ignored.has(line.trim()))) return { file, change: 'present' };
  await appendFile(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}${GITIGNORE_LINE}\n`);
  return { file, change: 'added' };
}

export function siteConfigPath(dir: string, name: string): string {
  return join(dir, 'site-configs', `${name}.json`);
}

export function ownerKeyFilePath(dir: string, name: string): string {
  return ownerKeyFile(join(dir, STATE_DIR), name);
}

export async function fileExists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

interface PendingFile {
  file: string;
  content: string;
  secret: boolean;
}

/**
 * Every file is first written to a temp file beside its target; only when all temp files exist are they
 * renamed into place. A failure (or Ctrl-C) before the renames leaves temp files only, which are removed.
 */
async function writeAllOrNothing(files: PendingFile[]): Promise<void> {
  const temps: string[] = [];
  try {
    for (const pending of files) {
      await mkdir(dirname(pending.file), { recursive: true, mode: pending.secret ? 0o700 : 0o777 });
      const temp = `${pending.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      temps.push(temp);
      await writeFile(temp, pending.content, { mode: pending.secret ? 0o600 : 0o644 });
      if (pending.secret) await chmod(temp, 0o600);
    }
  } catch (error) {
    await Promise.all(temps.map((temp) => rm(temp, { force: true })));
    throw error;
  }
  const renamed: string[] = [];
  try {
    for (const [index, pending] of files.entries()) {
      await rename(temps[index]!, pending.file);
      renamed.push(pending.file);
    }
  } catch (error) {
    await Promise.all([...temps.map((temp) => rm(temp, { force: true })), ...renamed.map((file) => rm(file, { force: true }))]);
    throw error;
  }
}

export async function writeSite(dir: string, answers: WizardAnswers): Promise<WrittenSite> {
  const keys = generateVapidKeyPair();
  const configFile = siteConfigPath(dir, answers.name);
  const config = configFromAnswers(answers, randomHash(), keys.publicKey, schemaReference(configFile, dir));
  const ownerApiKey = newOwnerKey();
  const sha256 = hashOwnerKey(ownerApiKey);
  const keyFile = vapidKeyFile(join(dir, STATE_DIR), answers.name);
  const ownerKeyFile = ownerKeyFilePath(dir, answers.name);
  await writeAllOrNothing([
    { file: keyFile, content: `${JSON.stringify(keys, null, 2)}\n`, secret: true },
    { file: ownerKeyFile, content: `${JSON.stringify({ sha256 }, null, 2)}\n`, secret: true },
    { file: configFile, content: `${JSON.stringify(config, null, 2)}\n`, secret: false },
  ]);
  const gitignore = await ensureGitignored(dir);
  return { configFile, keyFile, ownerKeyFile, ownerApiKey, gitignore };
}

/**
 * What the owner runs next, exactly as printed: from the project folder, where `.push-kit/` holds the keys that
 * `dev` and `send` read, so a `--dir` elsewhere starts with `cd`.
 */
export function nextStepsText(written: WrittenSite, name: string, dir: string): string {
  const inProject = relative(process.cwd(), resolve(dir));
  return [
    `Wrote ${written.configFile}`,
    `VAPID private key: ${written.keyFile} (mode 0600)`,
    ...gitignoreText(written.gitignore),
    `Owner API key (shown once, only its SHA-256 is stored in ${written.ownerKeyFile}):`,
    `  ${written.ownerApiKey}`,
    'Next:',
    ...(inProject === '' ? [] : [`  cd ${shellWord(inProject)}`]),
    `  npx push-kit build site-configs/${name}.json`,
    `  npx push-kit dev site-configs/${name}.json`,
  ].join('\n');
}

function gitignoreText({ file, change }: GitignoreChange): string[] {
  if (change === 'present') return [];
  const did = change === 'created' ? `Created ${file} with` : `Added to ${file}:`;
  return [`${did} ${GITIGNORE_LINE} (private keys and the database stay out of git)`];
}

/** A path as one shell word: quoted when it holds anything but the usual path characters. */
function shellWord(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
