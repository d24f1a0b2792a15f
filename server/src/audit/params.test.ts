import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpError } from '../http/errors.ts';
import { chartQuerySchema, feedQuerySchema, logsQuerySchema } from '@tollgate/contract';
import { parseQuery } from './params.ts';

const q = (s: string) => new URLSearchParams(s);
function fails(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => e instanceof HttpError && e.status === 400 && e.message === message);
}

test('logs defaults: page 1, limit 50, no filters; empty values count as absent', () => {
  assert.deepEqual(parseQuery(logsQuerySchema, q('')), { page: 1, limit: 50 });
  assert.deepEqual(parseQuery(logsQuerySchema, q('page=&limit=&event_type=&from=&to=')), { page: 1, limit: 50 });
});

test('logs parameters parse, event_type takes a comma-separated list', () => {
  assert.deepEqual(parseQuery(logsQuerySchema, q('page=3&limit=500&event_type=deny, block,,deny&from=10&to=20')),
    { page: 3, limit: 500, event_type: ['deny', 'block'], from: 10, to: 20 });
});

test('bad numbers are 400s naming the parameter', () => {
  fails(() => parseQuery(logsQuerySchema, q('page=0')), 'page: must be an integer from 1 to 100000');
  fails(() => parseQuery(logsQuerySchema, q('page=abc')), 'page: must be an integer from 1 to 100000');
  fails(() => parseQuery(logsQuerySchema, q('page=1.5')), 'page: must be an integer from 1 to 100000');
  fails(() => parseQuery(logsQuerySchema, q('limit=501')), 'limit: must be an integer from 1 to 500');
  fails(() => parseQuery(logsQuerySchema, q('limit=-1')), 'limit: must be an integer from 1 to 500');
  fails(() => parseQuery(logsQuerySchema, q('limit=1e3')), 'limit: must be an integer from 1 to 500');
  fails(() => parseQuery(logsQuerySchema, q('from=-5')), 'from: must be a Unix timestamp in seconds');
  fails(() => parseQuery(logsQuerySchema, q('to=99999999999999999999')), 'to: must be a Unix timestamp in seconds');
  fails(() => parseQuery(logsQuerySchema, q('from=20&to=10')), 'from: must not be after to');
  fails(() => parseQuery(logsQuerySchema, q(`event_type=${Array.from({ length: 21 }, (_, i) => `t${i}`).join(',')}`)), 'event_type: at most 20 event types');
});

test('chart bucket must be hour or day; feed limit is 1 to 100, default 20', () => {
  assert.equal(parseQuery(chartQuerySchema, q('')).bucket, 'hour');
  assert.equal(parseQuery(chartQuerySchema, q('bucket=day')).bucket, 'day');
  fails(() => parseQuery(chartQuerySchema, q('bucket=week')), 'bucket: must be hour or day');
  assert.equal(parseQuery(feedQuerySchema, q('')).limit, 20);
  fails(() => parseQuery(feedQuerySchema, q('limit=101')), 'limit: must be an integer from 1 to 100');
});
