// The HTTP floor for the service benchmark: a Fastify 5 POST route that validates a
// consumption-shaped JSON body against a schema, serializes a schema'd answer, and does
// nothing else (no auth, no log lines, no store). Same process interface as the
// service: HOST, PORT (0 = any free port), and a `listening on http://HOST:PORT` line.
import Fastify from 'fastify';

const app = Fastify({
  logger: false,
  ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
});

app.post(
  '/v1/customers/:customerId/consumptions',
  {
    schema: {
      params: {
        type: 'object',
        properties: { customerId: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } },
        required: ['customerId'],
      },
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['eventId', 'amount', 'timestamp'],
        properties: {
          eventId: { type: 'string', minLength: 1, maxLength: 1024 },
          amount: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
          timestamp: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        },
      },
      response: {
        200: {
          type: 'object',
          properties: { eventId: { type: 'string' }, accepted: { type: 'boolean' } },
        },
      },
    },
  },
  async (request) => ({ eventId: request.body.eventId, accepted: true }),
);

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 0);
await app.listen({ host, port });
const address = app.server.address();
console.log(`noop server listening on http://${address.address}:${address.port}`);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => app.close().then(() => process.exit(0)));
