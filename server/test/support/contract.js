// Shapes of the REST contract that more than one black-box test reads.

/**
 * One result of POST .../events as { status, body }: the batch answers each event as the
 * single call would, the status carried next to that call's body.
 */
export function batchItemAnswer(item) {
  if (item === null || typeof item !== 'object' || !Number.isInteger(item.status)) {
    throw new Error(`batch result without a status: ${JSON.stringify(item)}`);
  }
  if ('body' in item) return { status: item.status, body: item.body };
  const { status, ...body } = item;
  return { status, body };
}
