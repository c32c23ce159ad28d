// Where a webhook may point (server/webhooks/webhook-urls.ts): https only, http to this machine's loopback only
// with --allow-http-webhooks, no private address unless its origin is listed; the settings' own errors.
import { describe, expect, it } from 'vitest';
import { isServerError } from '../../server/errors.ts';
import { requireWebhookUrl, webhookUrlPolicy, webhookUrlProblem } from '../../server/webhooks/webhook-urls.ts';

const strict = webhookUrlPolicy({ allowHttp: false, privateOrigins: '' }, {});
const loose = webhookUrlPolicy({ allowHttp: true, privateOrigins: 'https://10.0.0.7:8443, https://crm.lan' }, {});

describe('webhook URLs', () => {
  it('takes http only to loopback, and only with --allow-http-webhooks', () => {
    expect(webhookUrlProblem('http://127.0.0.1:3000/hook', strict)).toMatch(/^must be https/);
    for (const url of ['http://127.0.0.1:3000/hook', 'http://[::1]:3000/hook', 'http://localhost:3000/hook']) {
      expect(webhookUrlProblem(url, loose), url).toBeUndefined();
    }
    for (const url of ['http://example.com/hook', 'http://10.0.0.7:8443/hook', 'http://169.254.169.254/']) {
      expect(webhookUrlProblem(url, loose), url).toMatch(/http is allowed only to a loopback address/);
    }
  });

  it('refuses private addresses unless their origin is listed', async () => {
    expect(webhookUrlProblem('https://10.0.0.7:8443/hook', strict)).toMatch(/private address/);
    expect(webhookUrlProblem('https://10.0.0.7:8443/hook', loose)).toBeUndefined();
    expect(webhookUrlProblem('https://10.0.0.7/hook', loose)).toMatch(/private address/);
    expect(webhookUrlProblem('https://[fd00::1]/hook', strict)).toMatch(/private address/);
    expect(webhookUrlProblem('https://[2002:a00:1::]/hook', strict)).toMatch(/private address/);
    expect(await requireWebhookUrl('https://203.0.113.9/hook', strict)).toBe('https://203.0.113.9/hook');
    await expect(requireWebhookUrl('https://127.0.0.1/hook', strict)).rejects.toSatisfy((error) => isServerError(error, 'E_WEBHOOK_URL'));
  });

  it('names a bad private-origins entry', () => {
    expect(() => webhookUrlPolicy({ privateOrigins: 'https://crm.lan/path' }, {})).toThrow(/"https:\/\/crm\.lan\/path" is not an origin/);
    expect(webhookUrlPolicy({}, { PUSHKIT_WEBHOOK_PRIVATE_ORIGINS: 'https://crm.lan', PUSHKIT_ALLOW_HTTP_WEBHOOKS: '1' })).toEqual({
      allowHttpLoopback: true,
      privateOrigins: new Set(['https://crm.lan']),
    });
  });
});
