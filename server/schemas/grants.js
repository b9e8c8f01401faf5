import { amount, consistencyQuery, errors, grantFieldNames, grantFields, ledgerId, noQuery, params, time, timeQuery } from './common.js';

export const grantInput = {
  type: 'object',
  properties: { grantId: ledgerId, amount, startTime: time, endTime: time },
  required: ['grantId', 'amount', 'startTime', 'endTime'],
  additionalProperties: false,
};

const acceptedPending = {
  type: 'array',
  description: 'the event ids of the queued consumptions this grant let in, in the order accepted',
  items: { type: 'string' },
};

export const grantAnswer = {
  type: 'object',
  properties: { ...grantFields, acceptedPending },
  required: [...grantFieldNames, 'acceptedPending'],
};
export const grantAnswerFields = grantAnswer.properties;

export const addGrant = {
  operationId: 'addGrant',
  tags: ['grants'],
  summary: 'Add a grant (201 first add, 200 identical retry, 409 DUPLICATE_ID)',
  params: params(),
  querystring: noQuery,
  body: grantInput,
  response: { 200: grantAnswer, 201: grantAnswer, ...errors(409, 413, 422) },
};

const grantState = {
  type: 'object',
  properties: { ...grantFields, remaining: { type: 'integer' } },
  required: [...grantFieldNames, 'remaining'],
};

export const grantsAt = {
  operationId: 'grantsAt',
  tags: ['grants'],
  summary: 'Grants valid at a time, in draw order, with what remains of each (grantsAt)',
  params: params(),
  querystring: timeQuery('at'),
  response: {
    200: { type: 'object', properties: { grants: { type: 'array', items: grantState } }, required: ['grants'] },
    ...errors(409),
  },
};

export const burnDown = {
  operationId: 'burnDown',
  tags: ['grants'],
  summary: "A grant's draws and its remaining credit over its window (burnDown)",
  params: params('grantId'),
  querystring: consistencyQuery,
  response: {
    200: {
      type: 'object',
      properties: {
        ...grantFields,
        draws: {
          type: 'array',
          items: {
            type: 'object',
            properties: { timestamp: { type: 'integer' }, eventId: { type: 'string' }, amount: { type: 'integer' } },
            required: ['timestamp', 'eventId', 'amount'],
          },
        },
        remaining: { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
      },
      required: [...grantFieldNames, 'draws', 'remaining'],
    },
    ...errors(404),
  },
};

const changeFields = { applied: { type: 'boolean' }, blockingEventId: { type: ['string', 'null'] } };

export const voidGrant = {
  operationId: 'voidGrant',
  tags: ['grants'],
  summary: 'Void a grant unless that unfunds an accepted consumption (writer; no body, or {})',
  params: params('grantId'),
  querystring: noQuery,
  response: { 200: { type: 'object', properties: changeFields, required: ['applied', 'blockingEventId'] }, ...errors(404, 409, 413) },
};

export const setGrantEnd = {
  operationId: 'setGrantEnd',
  tags: ['grants'],
  summary: "Move a grant's end: early expiry (refused if it unfunds) or extension (writer)",
  params: params('grantId'),
  querystring: noQuery,
  body: { type: 'object', properties: { endTime: time }, required: ['endTime'], additionalProperties: false },
  response: {
    200: {
      type: 'object',
      properties: { ...changeFields, acceptedPending: { type: 'array', items: { type: 'string' } } },
      required: ['applied', 'blockingEventId', 'acceptedPending'],
    },
    ...errors(404, 409, 413),
  },
};
