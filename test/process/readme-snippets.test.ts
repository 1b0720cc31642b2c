import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';
import { blocksOf, ROOT } from '../support/docs-blocks';
import { devClientToken, startSourceService, type RunningService } from '../support/process/service-process';
import { freePort } from '../support/process/free-port';
import { eventually } from '../support/webhook-receiver';

/**
 * The API snippets of README and docs/, run as written against a started
 * service, top to bottom, in one shell: the quick start's login, README's
 * first calls, the two token forms, then every block of docs/endpoints.md,
 * docs/checkout.md, docs/events-and-webhooks.md, docs/cards-on-file.md, docs/settlement.md and docs/disputes.md, each taking the ids it
 * needs from the answers before it. Only the service's address is rewritten
 * (it listens on a free port here).
 */
let service: RunningService;
beforeAll(async () => {
  // Deliveries looked for every 100 ms, so the receiver's test does not wait on the default second.
  service = await startSourceService({ WEBHOOK_POLL_INTERVAL_MS: '100' });
}, 90_000);
afterAll(() => service.stop());

/** Runs one page's blocks as written, in a new shell of its own; only the service's address is rewritten. */
async function runOnItsOwn(blocks: readonly string[]): Promise<string> {
  const script = ['set -euo pipefail', ...blocks].join('\n').replaceAll('http://localhost:8080', service.baseUrl);
  const { stdout } = await promisify(execFile)('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 });
  // Every answer printed is a success: no ErrorMessage among them.
  expect(stdout).not.toContain('"messageKey"');
  return stdout;
}

/**
 * Each page of calls, with what its answers must show. Each opens with what
 * it needs (the address, a token, the headers, the helper, its records), so
 * a reader can run any one of them alone in a new shell (issue 54).
 */
const PAGES: Array<{ page: string; blocks: () => string[]; shows: (stdout: string) => void }> = [
  {
    page: 'README.md',
    blocks: () => [blocksOf('README.md', '## Quick start').find((block) => block.includes('TOKEN=$(')) ?? '', ...blocksOf('README.md', '## First calls')],
    shows: (stdout) => expect(stdout).toContain('"externalReferenceId":"crm-1"'),
  },
  {
    page: 'docs/authentication.md',
    blocks: () => [blocksOf('docs/authentication.md', '# Authentication')[0] ?? ''],
    shows: (stdout) => expect(stdout).toContain('"access_token":"'),
  },
  {
    page: 'docs/endpoints.md',
    blocks: () => blocksOf('docs/endpoints.md', '# Endpoints'),
    shows: (stdout) => {
      expect(stdout).toContain('"results":1,"customers":[{');
      expect(stdout).toContain('"contextName":"web-checkout"');
      expect(stdout).toContain('204');
    },
  },
  {
    page: 'docs/checkout.md',
    blocks: () => blocksOf('docs/checkout.md', '# Payment intents: the checkout'),
    shows: (stdout) => {
      // The browser side read the customer's card with the session secret and paid with it; the backend captured.
      expect(stdout).toContain('"results":1,"paymentMethods":[{');
      expect(stdout).toContain('"status":"REQUIRES_CAPTURE"');
      expect(stdout).toMatch(/"status":"SUCCEEDED".*"latestPayment":\{[^}]*"status":"CAPTURED","amount":1250/);
      expect(stdout).toMatch(/"results":1,"paymentIntents":\[\{/);
      // The partial refund, and what is left to refund.
      expect(stdout).toMatch(/"amount":300,"reason":"REQUESTED_BY_CUSTOMER","status":"SUCCEEDED","failureCode":null/);
      expect(stdout).toContain('"amountCaptured":1250,"amountRefunded":300,"refundableAmount":950');
      expect(stdout).toMatch(/"results":1,"refunds":\[\{/);
    },
  },
  {
    page: 'docs/events-and-webhooks.md',
    blocks: () => blocksOf('docs/events-and-webhooks.md', '# Events and webhooks'),
    shows: (stdout) => {
      // The customer's history, newest first, and the endpoint made with its secret.
      expect(stdout).toContain('"results":2,"events":[{');
      expect(stdout).toContain('"type":"payment_method.attached"');
      expect(stdout).toMatch(/"results":0,"deliveries":\[\]|"deliveries":\[\{/);
    },
  },
  {
    page: 'docs/cards-on-file.md',
    blocks: () => blocksOf('docs/cards-on-file.md', '# Cards on file: mandates and merchant-initiated charges'),
    shows: (stdout) => {
      // The subscription: a charge under the mandate, without the payor, then the mandate revoked.
      expect(stdout).toMatch(/"status":"SUCCEEDED"[^\n]*"offSession":true,"latestPayment"/);
      expect(stdout).toContain('"status":"INACTIVE","maxAmount":2500');
      // The profile page's setup: the card verified and saved, and its mandate made, by the browser's confirm; then a reorder under it.
      expect(stdout).toMatch(/"status":"SUCCEEDED","usage":"OFF_SESSION"[^\n]*"mandateId":"[0-9a-f-]{36}","lastSetupError":null/);
      expect(stdout).toMatch(/"status":"SUCCEEDED"[^\n]*"standingInstructionType":"UNSCHEDULED","offSession":true/);
    },
  },
  {
    page: 'docs/settlement.md',
    blocks: () => blocksOf('docs/settlement.md', '# Settlement: business days, the ledger, batches and payouts'),
    shows: (stdout) => {
      // A week closed into seven batches, each with its payout; the first payment's capture and its refund in its trail.
      expect(stdout).toMatch(/"results":7,"batches":\[/);
      expect(stdout).toMatch(/"results":7,"payouts":\[/);
      expect(stdout).toMatch(
        /"type":"CAPTURE"[^\n]*"gross":4200,"tip":600,"fee":152,"net":4048[^\n]*"type":"REFUND"[^\n]*"gross":-1000,"tip":0,"fee":-36,"net":-964/,
      );
      expect(stdout).toMatch(/"type":"PAYOUT","sourceType":"payout"/);
      // The first day's sales with the refund against it; the week's file, whose net column sums to zero.
      expect(stdout).toMatch(
        /"counts":\{"captures":1,"refunds":1,"refundFailures":0,"disputes":0,"lines":2\},"totals":\{"gross":4200,"tips":600,"refunds":-1000,"refundFailures":0,"disputes":0,"fees":116,"net":3084\}/,
      );
      expect(stdout).toContain('batchBusinessDate,batchId,id,type,');
      expect(stdout).toMatch(/,CAPTURE,[^\n]*,table-12,VISA,4242,USD,42\.00,6\.00,1\.52,40\.48,/);
      expect(stdout).toContain('net 0.00');
    },
  },
  {
    page: 'docs/disputes.md',
    blocks: () => blocksOf('docs/disputes.md', '# Disputes: inquiries and chargebacks on the clock'),
    shows: (stdout) => {
      // The 2685 card's chargeback, its two lines, the refund it blocks, and its deadline passed.
      expect(stdout).toMatch(/"amount":3000,"currency":"USD","stage":"CHARGEBACK","status":"NEEDS_RESPONSE","reason":"PRODUCT_NOT_RECEIVED"/);
      expect(stdout).toMatch(/"type":"DISPUTE_WITHDRAWAL"[^\n]*"gross":-3000[^\n]*"type":"DISPUTE_FEE"[^\n]*"fee":1500,"net":-1500/);
      expect(stdout).toContain('A chargeback holds 3000 of the captured amount: 0 (minor units) may still be refunded.');
      expect(stdout).toMatch(/"status":"ACCEPTED"[^\n]*"closedBy":"DEADLINE"/);
      // The won one: drafted, submitted, decided, reinstated in a later closed batch.
      expect(stdout).toContain('"documentTypesNeeded":["receipt","customer_signature"]');
      expect(stdout).toMatch(/"status":"UNDER_REVIEW"[^\n]*"submitted":true/);
      expect(stdout).toMatch(/"status":"WON"[^\n]*"closedBy":"ISSUER"/);
      expect(stdout).toMatch(/"type":"DISPUTE_REINSTATEMENT"[^\n]*"gross":4200/);
      expect(stdout).toMatch(/"status":"CLOSED"[^\n]*"totals":\{[^}]*"disputes":4200/);
    },
  },
];

describe("README's and docs' API snippets", () => {
  it.each(PAGES.map((page) => [page.page, page] as const))(
    '%s runs on its own, in a new shell, every call answered without an error',
    async (_page, { blocks, shows }) => {
      shows(await runOnItsOwn(blocks()));
    },
    90_000,
  );

  it('include a webhook receiver that verifies real deliveries as saved', async () => {
    const [program] = blocksOf('docs/events-and-webhooks.md', '# Events and webhooks', 'ts');
    expect(program).toContain("from 'standardwebhooks'");
    // Saved in the checkout (git-ignored test-output/), so that it imports the project's standardwebhooks.
    mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
    const file = path.join(ROOT, 'test-output', `readme-webhook-receiver-${process.pid}.ts`);
    writeFileSync(file, program as string);
    const token = await devClientToken(service.baseUrl);
    const headers = { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': 'store-receiver', 'Content-Type': 'application/json' };
    const port = await freePort();
    const endpoint = await fetch(`${service.baseUrl}/v1/webhook-endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks`, enabledEvents: ['customer.created'] }),
    });
    const { secret } = (await endpoint.json()) as { secret: string };
    const receiver = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: String(port), WEBHOOK_SECRET: secret },
    });
    try {
      const output: string[] = [];
      createInterface({ input: receiver.stdout }).on('line', (line) => output.push(line));
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).catch(() => undefined))?.status === 400);
      const created = await fetch(`${service.baseUrl}/v1/customers`, { method: 'POST', headers, body: '{}' });
      const { id } = (await created.json()) as { id: string };
      const events = (await (await fetch(`${service.baseUrl}/v1/events?customerId=${id}`, { headers })).json()) as { events: Array<{ id: string }> };
      await eventually(() => output.length > 0);
      expect(output).toEqual([`verified customer.created ${events.events[0]?.id}`]);
    } finally {
      receiver.kill();
      rmSync(file, { force: true });
    }
  }, 90_000);

  it('include a typed-client program that runs as saved (a .ts file at the root, run with tsx)', async () => {
    const [program] = blocksOf('docs/openapi-and-client.md', '## Typed client', 'ts');
    expect(program).toContain('clientCredentials(');
    // Saved outside the tree, so its import from the checkout (./clients/typescript/…) is made absolute; and the address rewritten. Nothing else.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cpp-readme-'));
    const file = path.join(dir, 'typed-client.ts');
    writeFileSync(file, (program as string).replaceAll("'./clients/", `'${ROOT}/clients/`).replaceAll('http://localhost:8080', service.baseUrl));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, timeout: 60_000 });
      expect(stdout).toContain('results: 0');
      expect(stdout).toContain('paymentMethods: []');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
