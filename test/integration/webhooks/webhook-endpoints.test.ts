import request from 'supertest';
import { secretBox, secretContext } from '../../../src/platform/secrets/secret-box';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/** Managing webhook endpoints: the secret shown only when made or rotated, URLs checked, endpoints kept to their location. */
let testApp: TestApp;
let publicOnly: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
  publicOnly = await startTestApp({ database: testApp.db, webhookAllowPrivateTargets: false });
});
afterAll(() => testApp.close());

const SECRET = /^whsec_[A-Za-z0-9+/]{32}$/;

async function createEndpoint(app: TestApp, location: string, body: Record<string, unknown> = { url: 'https://hooks.example.com/in', enabledEvents: ['*'] }) {
  return request(app.app).post('/v1/webhook-endpoints').set(app.as(location)).send(body);
}

describe('webhook endpoints', () => {
  it('are made ENABLED with a whsec_ secret shown in that answer only, then read, listed, changed and deleted', async () => {
    const location = newLocation();
    const made = await createEndpoint(testApp, location, { url: 'https://hooks.example.com/in', enabledEvents: ['customer.created'], description: 'CRM' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.any(String),
      url: 'https://hooks.example.com/in',
      description: 'CRM',
      enabledEvents: ['customer.created'],
      status: 'ENABLED',
      disabledReason: null,
      createdAt: expect.any(String),
      secret: expect.stringMatching(SECRET),
    });
    // 24 random bytes: base64 of 32 characters, decoding back to 24 bytes.
    expect(Buffer.from((made.body.secret as string).slice('whsec_'.length), 'base64')).toHaveLength(24);
    const { secret, ...shown } = made.body as Record<string, unknown>;

    const read = await request(testApp.app).get(`/v1/webhook-endpoints/${made.body.id}`).set(testApp.as(location)).expect(200);
    expect(read.body).toEqual(shown);
    const list = await request(testApp.app).get('/v1/webhook-endpoints').set(testApp.as(location)).expect(200);
    expect(list.body).toEqual({ results: 1, webhookEndpoints: [shown], hasMore: false });
    expect(JSON.stringify([read.body, list.body])).not.toContain(secret as string);

    const disabled = await request(testApp.app)
      .patch(`/v1/webhook-endpoints/${made.body.id}`)
      .set(testApp.as(location))
      .send({ status: 'DISABLED', enabledEvents: ['*'], description: null })
      .expect(200);
    expect(disabled.body).toMatchObject({ status: 'DISABLED', disabledReason: 'MANUAL', enabledEvents: ['*'], description: null });
    const enabled = await request(testApp.app).patch(`/v1/webhook-endpoints/${made.body.id}`).set(testApp.as(location)).send({ status: 'ENABLED' }).expect(200);
    expect(enabled.body).toMatchObject({ status: 'ENABLED', disabledReason: null });

    await request(testApp.app).delete(`/v1/webhook-endpoints/${made.body.id}`).set(testApp.as(location)).expect(204);
    await request(testApp.app).get(`/v1/webhook-endpoints/${made.body.id}`).set(testApp.as(location)).expect(404);
  });

  it('rotate their secret: the answer shows the new one, and the old one is kept to sign beside it', async () => {
    const location = newLocation();
    const made = await createEndpoint(testApp, location);
    const rotated = await request(testApp.app).post(`/v1/webhook-endpoints/${made.body.id}/rotate-secret`).set(testApp.as(location)).expect(200);
    expect(rotated.body.secret).toMatch(SECRET);
    expect(rotated.body.secret).not.toBe(made.body.secret);
    const row = await testApp.db.knex('webhook_endpoints').where({ location_id: location, id: made.body.id }).first();
    // Kept encrypted (issue 36, item 8), under the same record's binding.
    expect(row.previous_secret).not.toContain(made.body.secret);
    expect(secretBox().open(row.previous_secret, secretContext('webhook_endpoints', location, made.body.id))).toBe(made.body.secret);
    const hours = (new Date(row.previous_secret_expires_at).getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
  });

  it('refuse bad bodies with the field at fault, and change nothing', async () => {
    const location = newLocation();
    for (const [body, fieldName] of [
      [{ url: 'not a url', enabledEvents: ['*'] }, 'url'],
      [{ url: 'ftp://hooks.example.com', enabledEvents: ['*'] }, 'url'],
      [{ url: 'https://user:pass@hooks.example.com', enabledEvents: ['*'] }, 'url'],
      [{ url: 'https://hooks.example.com', enabledEvents: [] }, 'enabledEvents'],
      [{ url: 'https://hooks.example.com', enabledEvents: ['card.saved'] }, 'enabledEvents.0'],
      [{ url: 'https://hooks.example.com', enabledEvents: ['*', '*'] }, 'enabledEvents'],
      [{ url: 'https://hooks.example.com', enabledEvents: ['*'], secret: 'whsec_mine' }, 'secret'],
    ] as const) {
      const refused = await createEndpoint(testApp, location, body);
      expect(refused.status).toBe(400);
      expect(refused.body.fieldName).toBe(fieldName);
    }
    expect((await request(testApp.app).get('/v1/webhook-endpoints').set(testApp.as(location)).expect(200)).body.results).toBe(0);
  });

  it('must be public https where private targets are not allowed (production)', async () => {
    const location = newLocation();
    for (const url of [
      'http://hooks.example.com/in',
      'https://127.0.0.1/in',
      'https://10.1.2.3/in',
      'https://169.254.169.254/latest',
      'https://[::1]/in',
      'https://[::ffff:127.0.0.1]/in',
      'https://localhost/in',
    ]) {
      const refused = await createEndpoint(publicOnly, location, { url, enabledEvents: ['*'] });
      expect({ url, status: refused.status, fieldName: refused.body.fieldName }).toEqual({ url, status: 400, fieldName: 'url' });
    }
    expect((await createEndpoint(publicOnly, location, { url: 'https://8.8.8.8/in', enabledEvents: ['*'] })).status).toBe(201);
    const made = await createEndpoint(publicOnly, location);
    await request(publicOnly.app).patch(`/v1/webhook-endpoints/${made.body.id}`).set(publicOnly.as(location)).send({ url: 'https://192.168.0.1/' }).expect(400);
  });

  it("belong to the location they were made under: another location's is a 404 for every operation", async () => {
    const mine = newLocation();
    const theirs = newLocation();
    const made = await createEndpoint(testApp, theirs);
    const id = made.body.id as string;
    await request(testApp.app).get(`/v1/webhook-endpoints/${id}`).set(testApp.as(mine)).expect(404);
    await request(testApp.app).patch(`/v1/webhook-endpoints/${id}`).set(testApp.as(mine)).send({ status: 'DISABLED' }).expect(404);
    await request(testApp.app).post(`/v1/webhook-endpoints/${id}/rotate-secret`).set(testApp.as(mine)).expect(404);
    await request(testApp.app).get(`/v1/webhook-endpoints/${id}/deliveries`).set(testApp.as(mine)).expect(404);
    await request(testApp.app).delete(`/v1/webhook-endpoints/${id}`).set(testApp.as(mine)).expect(404);
    expect((await request(testApp.app).get('/v1/webhook-endpoints').set(testApp.as(mine)).expect(200)).body.results).toBe(0);
    const still = await request(testApp.app).get(`/v1/webhook-endpoints/${id}`).set(testApp.as(theirs)).expect(200);
    expect(still.body.status).toBe('ENABLED');
  });
});
