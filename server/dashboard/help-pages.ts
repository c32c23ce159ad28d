// The guides the dashboard and the command line link to (a failure's "how to fix it"), rendered from the shipped
// docs/ into the built dashboard's help/ folder when it is built, so the provider serves them from the owner's own
// machine with the dashboard's stylesheet: no link leaves for a site that may not exist.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The guides served at /dashboard/help/<name>, each from docs/<name>.md. */
export const HELP_PAGES = ['delivery-failures'] as const;
export type HelpPage = (typeof HELP_PAGES)[number];

/** A heading's anchor as GitHub names it, so a docs link works on both: "VAPID subject: BadJwtToken" -> "vapid-subject-badjwttoken". */
export function headingAnchor(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The shipped docs/ folder: beside server/ in a checkout, beside dist-pkg/ in the installed package. */
function shippedDocsDir(): string | undefined {
  for (const up of ['../../docs/', '../../../docs/']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(join(dir, 'delivery-failures.md'))) return dir;
  }
  return undefined;
}

/**
 * Where a help link's explanation is in the installed package, for the command line (which may talk to no
 * provider): the guide's file and the heading of the link's anchor, e.g. `…/docs/delivery-failures.md, section
 * "VAPID key mismatch"`; the link itself when the file is not there.
 */
export function helpInShippedDocs(link: string): string {
  const match = /^\/dashboard\/help\/([a-z-]+)(?:#([a-z0-9_-]+))?$/.exec(link);
  const docs = shippedDocsDir();
  if (!match || !docs || !(HELP_PAGES as readonly string[]).includes(match[1]!)) return link;
  const file = join(docs, `${match[1]}.md`);
  const heading = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => /^#{1,6} (.+)$/.exec(line)?.[1])
    .find((text) => text !== undefined && headingAnchor(text) === match[2]);
  return heading ? `${file}, section "${heading}"` : file;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// marked is a dev dependency like Vite: the package ships these pages prebuilt, so an installed provider never loads it
async function renderer(): Promise<import('marked').Marked> {
  const { Marked } = await import('marked');
  return new Marked({
    renderer: {
      heading({ tokens, depth, text }) {
        return `<h${depth} id="${headingAnchor(text)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
    },
  });
}

/** Writes help/<name>.html into a built dashboard folder for each guide in `docsDir`. */
export async function writeHelpPages(docsDir: string, outDir: string): Promise<void> {
  const stylesheet = (await readdir(join(outDir, 'assets')).catch(() => [] as string[])).find((file) => file.endsWith('.css'));
  await mkdir(join(outDir, 'help'), { recursive: true });
  const markdown = await renderer();
  for (const name of HELP_PAGES) {
    const source = await readFile(join(docsDir, `${name}.md`), 'utf8');
    const title = /^# (.+)$/m.exec(source)?.[1] ?? name;
    const body = await markdown.parse(source);
    const html = [
      '<!doctype html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      `<title>${escapeHtml(title)} · push-kit</title>`,
      ...(stylesheet ? [`<link rel="stylesheet" href="../assets/${stylesheet}">`] : []),
      '</head>',
      '<body>',
      `<main class="help">${body}<p><a href="../">Back to the dashboard</a></p></main>`,
      '</body>',
      '</html>',
      '',
    ].join('\n');
    await writeFile(join(outDir, 'help', `${name}.html`), html);
  }
}
