/**
 * Ceiling (a): a bare Express 5 route answering scenario 1's JSON from memory.
 * No token, no database: what Express and Node cost on this machine.
 *   PORT, CEILING_BODY (the JSON to answer)
 */
import express from 'express';

const body = JSON.parse(process.env.CEILING_BODY ?? '{}') as unknown;
const app = express();
app.get('/v1/customers/:id/payment-methods', (_request, response) => {
  response.json(body);
});
const port = Number(process.env.PORT);
app.listen(port, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ msg: 'listening', port })}\n`));
