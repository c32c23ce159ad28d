// The owner API of the compose screen, inside the owner scope (ownerSiteHook has checked the member's role):
//   GET    /api/v1/sites/:name/drafts[?kind=]     drafts and templates, the last saved first        (viewer)
//   POST   /api/v1/sites/:name/drafts              a new draft or template                          (editor)
//   PUT    /api/v1/sites/:name/drafts/:id          save over it (as the owner types: not audited)   (editor)
//   DELETE /api/v1/sites/:name/drafts/:id          delete it (the dashboard does once it is sent)   (editor)
//   GET    /api/v1/sites/:name/test-devices        the caller's test devices and the site's key     (editor)
//   PUT    /api/v1/sites/:name/test-devices        register this browser's subscription             (editor)
//   DELETE /api/v1/sites/:name/test-devices/:id    forget one                                       (editor)
//   POST   /api/v1/sites/:name/test-sends          the composed message to one of them, now         (editor)
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ownedSite, signedInMember } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { addSiteDraft, removeSiteDraft, saveSiteDraft, siteDrafts } from './owner-drafts.ts';
import { addTestDevice, memberTestDevices, removeTestDevice, sendTest } from './test-sends.ts';
import {
  draftBody,
  draftParams,
  DRAFT_DELETED_REPLY,
  DRAFT_REPLY,
  DRAFTS_REPLY,
  draftsQuery,
  draftUpdateBody,
  testDeviceBody,
  testDeviceParams,
  TEST_DEVICE_REMOVED_REPLY,
  TEST_DEVICE_REPLY,
  TEST_DEVICES_REPLY,
  testSendBody,
  TEST_SEND_REPLY,
} from './schemas.ts';

/** Whose test devices these are: the member's id (the provider file's token is one owner of its own). */
const memberKeyOf = (request: FastifyRequest) => signedInMember(request).memberId ?? 'provider-token';

export async function composeRoutes(fastify: FastifyInstance, { db, clock, stateDir, pushServices }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const drafts = '/api/v1/sites/:name/drafts';
  const devices = '/api/v1/sites/:name/test-devices';

  app.get(
    drafts,
    { config: { role: 'viewer' }, schema: { params: SITE_PARAMS, querystring: draftsQuery, response: { 200: DRAFTS_REPLY } } },
    async (request) => ({ status: 'success' as const, drafts: await siteDrafts(db, ownedSite(request), request.query.kind) }),
  );

  app.post(
    drafts,
    { config: { role: 'editor', audit: 'draft.create' }, schema: { params: SITE_PARAMS, body: draftBody, response: { 201: DRAFT_REPLY } } },
    async (request, reply) => {
      const draft = await addSiteDraft(db, ownedSite(request), request.body, signedInMember(request).name, clock());
      return reply.code(201).send({ status: 'success', draft });
    },
  );

  app.put(
    `${drafts}/:id`,
    { config: { role: 'editor' }, schema: { params: draftParams, body: draftUpdateBody, response: { 200: DRAFT_REPLY } } },
    async (request) => ({
      status: 'success' as const,
      draft: await saveSiteDraft(db, ownedSite(request), request.params.id, request.body, signedInMember(request).name, clock()),
    }),
  );

  app.delete(
    `${drafts}/:id`,
    { config: { role: 'editor', audit: 'draft.delete' }, schema: { params: draftParams, response: { 200: DRAFT_DELETED_REPLY } } },
    async (request) => {
      await removeSiteDraft(db, ownedSite(request), request.params.id);
      return { status: 'success' as const, draftId: request.params.id, deleted: true as const };
    },
  );

  app.get(
    devices,
    { config: { role: 'editor' }, schema: { params: SITE_PARAMS, response: { 200: TEST_DEVICES_REPLY } } },
    async (request) => {
      const site = ownedSite(request);
      return {
        status: 'success' as const,
        vapidPublicKey: site.config.vapidPublicKey,
        devices: await memberTestDevices(db, site, memberKeyOf(request)),
      };
    },
  );

  app.put(
    devices,
    {
      config: { role: 'editor', audit: 'test-device.add' },
      schema: { params: SITE_PARAMS, body: testDeviceBody, response: { 200: TEST_DEVICE_REPLY } },
    },
    async (request) => ({
      status: 'success' as const,
      device: await addTestDevice(db, ownedSite(request), memberKeyOf(request), request.body, pushServices),
    }),
  );

  app.delete(
    `${devices}/:id`,
    {
      config: { role: 'editor', audit: 'test-device.remove' },
      schema: { params: testDeviceParams, response: { 200: TEST_DEVICE_REMOVED_REPLY } },
    },
    async (request) => {
      await removeTestDevice(db, ownedSite(request), memberKeyOf(request), request.params.id);
      return { status: 'success' as const, deviceId: request.params.id, removed: true as const };
    },
  );

  app.post(
    '/api/v1/sites/:name/test-sends',
    {
      config: { role: 'editor', audit: 'campaign.test' },
      schema: { params: SITE_PARAMS, body: testSendBody, response: { 200: TEST_SEND_REPLY } },
    },
    async (request) => ({
      status: 'success' as const,
      ...(await sendTest(db, ownedSite(request), memberKeyOf(request), request.body, { stateDir, pushServices })),
    }),
  );
}
