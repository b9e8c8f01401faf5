import { allocations, amount, consistencyQuery, errors, ledgerId, noQuery, params, time } from './common.js';

export const consumptionInput = {
  type: 'object',
  properties: {
    eventId: ledgerId,
    amount,
    timestamp: time,
    dryRun: { type: 'boolean', description: 'answer without changing anything (readers may do this)' },
    queue: { type: 'boolean', description: 'queue it instead of rejecting it when it cannot be funded now' },
  },
  required: ['eventId', 'amount', 'timestamp'],
  additionalProperties: false,
};

export const consumptionAnswerFields = {
  eventId: { type: 'string' },
  accepted: { type: 'boolean' },
  queued: { type: 'boolean' },
  allocations,
  reason: { type: ['string', 'null'], enum: ['INSUFFICIENT_CREDIT', 'WOULD_UNFUND', null] },
  blockingEventId: { type: ['string', 'null'] },
};

export const consumptionAnswer = {
  type: 'object',
  properties: consumptionAnswerFields,
  required: Object.keys(consumptionAnswerFields),
};

export const consume = {
  operationId: 'consume',
  tags: ['consumptions'],
  summary: 'Consume credits: accepted, rejected with a reason (200), or queued',
  params: params(),
  querystring: noQuery,
  body: consumptionInput,
  response: { 200: consumptionAnswer, ...errors(409, 413, 422) },
};

export const getConsumption = {
  operationId: 'allocations',
  tags: ['consumptions'],
  summary: 'An accepted consumption and its current draws (404 when unknown, rejected, queued, or dropped while queued)',
  params: params('eventId'),
  querystring: consistencyQuery,
  response: {
    200: {
      type: 'object',
      properties: { eventId: { type: 'string' }, amount: { type: 'integer' }, timestamp: { type: 'integer' }, allocations },
      required: ['eventId', 'amount', 'timestamp', 'allocations'],
    },
    ...errors(404),
  },
};

const pendingItem = {
  type: 'object',
  properties: { eventId: { type: 'string' }, amount: { type: 'integer' }, timestamp: { type: 'integer' } },
  required: ['eventId', 'amount', 'timestamp'],
};

export const listPending = {
  operationId: 'pending',
  tags: ['consumptions'],
  summary: 'Queued consumptions, in retry order (timestamp, arrival)',
  params: params(),
  querystring: consistencyQuery,
  response: { 200: { type: 'object', properties: { pending: { type: 'array', items: pendingItem } }, required: ['pending'] }, ...errors() },
};

export const cancelPending = {
  operationId: 'cancelPending',
  tags: ['consumptions'],
  summary: 'Cancel a queued consumption (200 again for a retried cancel; 404 when it is not queued; no body, or {})',
  params: params('eventId'),
  querystring: noQuery,
  response: {
    200: {
      type: 'object',
      properties: { eventId: { type: 'string' }, cancelled: { type: 'boolean' } },
      required: ['eventId', 'cancelled'],
    },
    ...errors(404, 413),
  },
};
