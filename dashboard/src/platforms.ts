// How each platform the preview shows (Preview.tsx) cuts a notification's title and message: characters and lines,
// and whether it shows the image and the buttons. Sources: docs/dashboard.md#previews.
export const PLATFORMS = [
  {
    id: 'windows',
    label: 'Chrome on Windows',
    app: 'Google Chrome',
    title: { chars: 70, lines: 2 },
    body: { chars: 141, lines: 4 },
    image: true,
    actions: 'buttons',
  },
  {
    id: 'macos',
    label: 'Chrome on macOS',
    app: 'Google Chrome',
    title: { chars: 40, lines: 1 },
    body: { chars: 88, lines: 2 },
    image: false,
    actions: 'menu',
  },
  {
    id: 'android',
    label: 'Chrome on Android',
    app: 'Chrome',
    title: { chars: 30, lines: 1 },
    body: { chars: 65, lines: 1 },
    image: true,
    actions: 'buttons',
  },
  {
    id: 'firefox',
    label: 'Firefox on Windows',
    app: 'Firefox',
    title: { chars: 54, lines: 1 },
    body: { chars: 200, lines: 4 },
    image: false,
    actions: 'none',
  },
] as const;

export type Platform = (typeof PLATFORMS)[number];
export type PlatformId = Platform['id'];

/** The text as the platform shows it: cut after `chars` characters (code points) with an ellipsis. */
export function truncate(text: string, chars: number): string {
  const points = [...text];
  return points.length <= chars ? text : `${points.slice(0, chars - 1).join('')}…`;
}

export const lengthOf = (text: string) => [...text].length;

/** "Title: 98 characters, cut after 70 on Chrome on Windows, 40 on Chrome on macOS, …", or null when all show it whole. */
export function lengthHint(field: 'Title' | 'Message', text: string, limits: (platform: Platform) => number): string | null {
  const length = lengthOf(text);
  const cut = PLATFORMS.filter((platform) => length > limits(platform));
  if (cut.length === 0) return null;
  return `${field}: ${length} characters, cut after ${cut.map((platform) => `${limits(platform)} on ${platform.label}`).join(', ')}.`;
}
