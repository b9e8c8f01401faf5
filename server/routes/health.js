// GET /healthz: the process is up and its store answers.
export default async function health(fastify) {
  fastify.get(
    '/healthz',
    {
      schema: { hide: true, response: { 200: { type: 'object', properties: { status: { type: 'string' } } } } },
      config: { rateLimit: false },
    },
    async () => ({ status: 'ok' }),
  );
}
