// The VAPID subject (RFC 8292 `sub`) a site's pushes carry: checked when the config is read, since Apple's push
// service refuses every push whose subject is not a mailto: address or an https URL it can use (BadJwtToken).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../config/load-config.ts';
import { formatProblem } from '../../config/errors.ts';

const VAPID = 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s';
const config = (fields: Record<string, unknown>) =>
  parseConfigText(
    'shop.json',
    JSON.stringify({
      hash: 'shop-hash-01',
      companyName: 'Shop',
      origin: 'https://shop.example.com',
      serverSyncUrl: 'https://push.shop.example.com',
      vapidPublicKey: VAPID,
      ...fields,
    }),
  );

describe('vapidSubject', () => {
  it.each([
    'mailto:owner@shop.example.com',
    'mailto:push+alerts@mail.shop.co.uk',
    'https://shop.example.com',
    'https://shop.example.com/contact',
  ])('accepts %s', (vapidSubject) => {
    const loaded = config({ vapidSubject });
    expect(loaded.ok).toBe(true);
    if (loaded.ok) expect(loaded.warnings).toEqual([]);
  });

  it.each([
    'owner@shop.example.com',
    'mailto:owner@localhost',
    'mailto:owner@shop.localhost',
    'mailto:owner@127.0.0.1',
    'mailto:owner@intranet',
    'mailto:owner@shop.test',
    'mailto:Owner <owner@shop.example.com>',
    'mailto:a@shop.example.com,b@shop.example.com',
    'http://shop.example.com',
    'https://localhost:8443',
    'https://192.168.1.10/contact',
    'https://user:pw@shop.example.com',
    '',
  ])('refuses %j, naming the field and what Apple needs', (vapidSubject) => {
    const loaded = config({ vapidSubject });
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.problems).toEqual([expect.objectContaining({ code: 'E_VAPID_SUBJECT', path: 'vapidSubject' })]);
    expect(formatProblem('shop.json', loaded.problems[0]!)).toBe(
      "shop.json: vapidSubject: must be a mailto: address or an https: URL at a public host name (e.g. mailto:owner@yourshop.com or https://yourshop.com/contact): Apple's push service refuses every push whose VAPID subject is not one (BadJwtToken)",
    );
  });

  it('absent: the https origin is the subject, with no warning; an origin Apple cannot use warns, but not localhost', () => {
    const https = config({});
    expect(https.ok && https.warnings).toEqual([]);
    const local = config({ origin: 'http://shop.test', serverSyncUrl: 'http://push.shop.test', childWindowOrigin: 'http://cw.shop.test' });
    expect(local.ok).toBe(true);
    if (!local.ok) return;
    expect(local.warnings).toEqual([
      expect.objectContaining({
        code: 'W_VAPID_SUBJECT_DERIVED',
        path: 'vapidSubject',
        message: expect.stringContaining('(mailto:webpush@shop.test)'),
      }),
    ]);
    // a development site on this machine (push-kit init --yes): no warning on its first build
    const development = config({ origin: 'http://localhost:8080', serverSyncUrl: 'http://localhost:8787' });
    expect(development.ok && development.warnings).toEqual([]);
  });

  it('the example site config names a subject Apple accepts', () => {
    const loaded = parseConfigText('calligraphy.json', readFileSync('site-configs/calligraphy.json', 'utf8'));
    expect(loaded.ok).toBe(true);
    if (loaded.ok) expect(loaded.warnings.map((warning) => warning.code)).not.toContain('W_VAPID_SUBJECT_DERIVED');
  });
});
