import { consistencyQuery, errors, grantFieldNames, grantFields, params, timeQuery } from './common.js';

const at = (field) => ({
  type: 'object',
  properties: { customerId: { type: 'string' }, at: { type: 'integer' }, [field]: { type: 'integer' } },
  required: ['customerId', 'at', field],
});

export const balance = {
  operationId: 'getBalance',
  tags: ['reads'],
  summary: 'Balance at a time (an unknown customer has an empty ledger: 0)',
  params: params(),
  querystring: timeQuery('at'),
  response: { 200: at('balance'), ...errors(409) },
};

export const headroom = {
  operationId: 'headroom',
  tags: ['reads'],
  summary: 'The most a consumption at this time may take now',
  params: params(),
  querystring: timeQuery('at'),
  response: { 200: at('headroom'), ...errors(409) },
};

export const balanceCurve = {
  operationId: 'balanceCurve',
  tags: ['reads'],
  summary: 'The exact balance step function on [from, to]',
  params: params(),
  querystring: timeQuery('from', 'to'),
  response: {
    200: {
      type: 'object',
      properties: { points: { type: 'array', items: { type: 'array', items: { type: 'integer' } } } },
      required: ['points'],
    },
    ...errors(409),
  },
};

export const ledgerDocument = {
  operationId: 'toJSON',
  tags: ['reads'],
  summary: "The package's snapshot document (toJSON) of this customer",
  params: params(),
  querystring: consistencyQuery,
  response: {
    200: {
      type: 'object',
      // Exactly what the package's toJSON() returns: fields a later document version
      // adds pass through rather than being dropped by the serializer.
      additionalProperties: true,
      properties: {
        format: { type: 'string' },
        version: { type: 'integer' },
        horizon: { type: 'integer', description: 'the finality horizon: history before it was compacted away (0: never)' },
        grants: {
          type: 'array',
          items: {
            type: 'object',
            properties: grantFields,
            required: grantFieldNames,
          },
        },
        consumptions: {
          type: 'array',
          items: {
            type: 'object',
            properties: { eventId: { type: 'string' }, amount: { type: 'integer' }, timestamp: { type: 'integer' } },
            required: ['eventId', 'amount', 'timestamp'],
          },
        },
      },
      required: ['format', 'version', 'horizon', 'grants', 'consumptions'],
    },
    ...errors(),
  },
};
