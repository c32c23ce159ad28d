import { describe, expect, it } from 'vitest';
import { localDevConfig } from '../../cli/dev/dev-config.ts';

const local = { site: 'http://localhost:8080', provider: 'http://localhost:8787' };
const production = {
  $schema: '../node_modules/push-kit/schema/site-config.schema.json',
  hash: 'production-site-01',
  companyName: 'Production',
  origin: 'https://www.example.com',
  serverSyncUrl: 'https://push.example.com',
  servicesServerURL: 'https://services.example.com',
  cdnUrl: 'https://cdn.example.com/production',
  vapidPublicKey: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s',
  style: { iconUrl: 'https://www.example.com/img/icon.png?v=2', brandingType: 'default' },
  notificationClickOrigins: ['https://blog.example.com'],
  includeUrls: ['/shop/*'],
};

describe("dev's local copy of a config", () => {
  it('moves origin, serverSyncUrl and servicesServerURL to the local ports, drops cdnUrl and keeps every other field', () => {
    const copy = localDevConfig(production, local);
    expect(copy).toEqual({
      hash: 'production-site-01',
      companyName: 'Production',
      origin: 'http://localhost:8080',
      serverSyncUrl: 'http://localhost:8787',
      servicesServerURL: 'http://localhost:8787',
      vapidPublicKey: production.vapidPublicKey,
      style: { iconUrl: 'http://localhost:8080/img/icon.png?v=2', brandingType: 'default' },
      notificationClickOrigins: ['https://blog.example.com'],
      includeUrls: ['/shop/*'],
    });
    expect(production.origin).toBe('https://www.example.com');
  });

  it('adds no servicesServerURL and keeps an icon hosted elsewhere', () => {
    const { servicesServerURL: _, ...withoutServices } = production;
    const copy = localDevConfig({ ...withoutServices, style: { iconUrl: 'https://cdn.example.net/icon.png' } }, local);
    expect(copy).not.toHaveProperty('servicesServerURL');
    expect(copy.style).toEqual({ iconUrl: 'https://cdn.example.net/icon.png' });
  });
});
