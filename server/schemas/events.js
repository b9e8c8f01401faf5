import { errors, noQuery, params } from './common.js';
import { consumptionAnswerFields, consumptionInput } from './consumptions.js';
import { grantAnswerFields, grantInput } from './grants.js';

export const MAX_EVENTS = 1000;

const withType = (input, type) => ({
  ...input,
  properties: { type: { const: type }, ...input.properties },
  required: ['type', ...input.required],
});

// One flat result shape: `status` (what the single call would answer) and either that
// call's body fields or `error`.
const result = {
  type: 'object',
  properties: {
    status: { type: 'integer' },
    ...grantAnswerFields,
    ...consumptionAnswerFields,
    error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] },
  },
  required: ['status'],
};

export const applyEvents = {
  operationId: 'applyBatch',
  tags: ['events'],
  summary: `Up to ${MAX_EVENTS} grants and consumptions, applied in order and committed in one transaction`,
  params: params(),
  querystring: noQuery,
  body: {
    type: 'object',
    properties: {
      events: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_EVENTS,
        items: {
          type: 'object',
          discriminator: { propertyName: 'type' },
          required: ['type'],
          oneOf: [withType(consumptionInput, 'consumption'), withType(grantInput, 'grant')],
        },
      },
    },
    required: ['events'],
    additionalProperties: false,
  },
  response: { 200: { type: 'object', properties: { results: { type: 'array', items: result } }, required: ['results'] }, ...errors(413) },
};
