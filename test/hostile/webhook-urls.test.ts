import request from 'supertest';
import { isPublicAddress } from '../../src/webhooks/webhook-target';
import { newLocation } from '../factories/locations';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 36, item 3: webhook URLs that production accepted and should have
 * refused: credentials after an empty authority, a loopback name with a
 * trailing dot, the IPv4-compatible IPv6 form of loopback; a leading space
 * silently trimmed; and "must be an absolute http(s) URL" for one that was
 * only too long. The URL is now read once by the WHATWG parser, stored as
 * it parsed, and judged by what it will connect to.
 */
let publicOnly: TestApp;
beforeAll(async () => {
  publicOnly = await startTestApp({ webhookAllowPrivateTargets: false });
});
afterAll(() => publicOnly.close());

const create = (location: string, url: string) =>
  request(publicOnly.app)
    .post('/v1/webhook-endpoints')
    .set(publicOnly.as(location))
    .send({ url, enabledEvents: ['*'] });

describe('a webhook URL, where private targets are not allowed (production)', () => {
  it.each([
    ['credentials after an empty authority', 'https:///u:p@example.com/hook'],
    ['credentials', 'https://user@example.com/hook'],
    ['a trailing-dot loopback name', 'https://localhost.:8443/'],
    ['a trailing-dot name under localhost', 'https://api.localhost./'],
    ['loopback as IPv4-compatible IPv6', 'https://[::127.0.0.1]:8443/'],
    ['loopback as IPv4-mapped IPv6', 'https://[::ffff:7f00:1]/'],
    ['a private address in 6to4', 'https://[2002:c0a8:101::1]/'],
    ['loopback in NAT64', 'https://[64:ff9b::127.0.0.1]/'],
    ['metadata in NAT64', 'https://[64:ff9b::a9fe:a9fe]/'],
    ['loopback as a Teredo client', 'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/'],
    ['a leading space', ' https://hooks.example.com/in'],
    ['a trailing tab', 'https://hooks.example.com/in\t'],
    ['a decimal loopback host', 'https://2130706433/'],
  ])('refuses %s with 400 naming url, and stores nothing', async (_case, url) => {
    const location = newLocation();
    const refused = await create(location, url);
    expect({ status: refused.status, fieldName: refused.body.fieldName }).toEqual({ status: 400, fieldName: 'url' });
    expect((await request(publicOnly.app).get('/v1/webhook-endpoints').set(publicOnly.as(location)).expect(200)).body.results).toBe(0);
  });

  it('says a URL over the bound is too long', async () => {
    const refused = await create(newLocation(), `https://hooks.example.com/${'a'.repeat(2100)}`);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ fieldName: 'url', message: expect.stringMatching(/at most 2048 characters/) });
  });

  it('stores and answers the URL as the WHATWG parser reads it', async () => {
    const made = await create(newLocation(), 'HTTPS://Hooks.EXAMPLE.com:443/a/../in?x=1');
    expect(made.status).toBe(201);
    expect(made.body.url).toBe('https://hooks.example.com/in?x=1');
    expect(await publicOnly.db.knex('webhook_endpoints').where({ id: made.body.id }).first('url')).toEqual({ url: 'https://hooks.example.com/in?x=1' });
  });

  it('accepts an IPv6 form whose embedded IPv4 address is public', async () => {
    expect((await create(newLocation(), 'https://[64:ff9b::808:808]/in')).status).toBe(201);
  });
});

describe('isPublicAddress', () => {
  it.each([
    ['::7f00:1', false],
    ['::ffff:7f00:1', false],
    ['2002:7f00:1::', false],
    ['2002:a00:1::', false],
    ['64:ff9b::7f00:1', false],
    ['64:ff9b:1::a00:1', false],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['64:ff9b::808:808', true],
    ['2002:808:808::1', true],
    ['2606:4700:4700::1111', true],
    ['8.8.8.8', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
