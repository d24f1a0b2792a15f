// Preloaded (`node --import`) into the official MCP conformance suite when tests run it:
//  - on Node 20 the suite cannot load: it imports `globSync` from `fs` (Node 22). A resolve hook hands the suite's
//    own `fs` imports a module that adds it (conformance-fs.mjs); nothing else is affected. Newer Nodes have
//    `globSync` and deprecate `register` (DEP0205), so they get no hook;
//  - with TOLLGATE_TEST_ORIGIN and TOLLGATE_TEST_CLIENT_KEY set, every request to that origin carries
//    `Authorization: Bearer <key>`, as a configured client would send it (the suite has no option for credentials).
//    Host and Origin stay what the suite set, so the gateway sees what the suite meant to send.
import fs from 'node:fs';
import { register } from 'node:module';
import { Agent, setGlobalDispatcher } from 'undici';

if (typeof fs.globSync !== 'function') register(new URL('./conformance-hooks.mjs', import.meta.url));

const origin = process.env.TOLLGATE_TEST_ORIGIN;
const key = process.env.TOLLGATE_TEST_CLIENT_KEY;

function withKey(headers) {
  const auth = `Bearer ${key}`;
  if (headers == null) return { authorization: auth };
  if (Array.isArray(headers)) {
    // undici takes a flat [name, value, ...] list or a list of [name, value] pairs.
    return headers.length && Array.isArray(headers[0]) ? [...headers, ['authorization', auth]] : [...headers, 'authorization', auth];
  }
  if (typeof headers[Symbol.iterator] === 'function') return [...headers, ['authorization', auth]];
  return { ...headers, authorization: auth };
}

if (origin && key) {
  // Node's fetch and undici's request both use the process-wide dispatcher, so one interceptor covers the suite.
  setGlobalDispatcher(new Agent().compose((dispatch) => (opts, handler) => {
    const to = typeof opts.origin === 'string' ? opts.origin : opts.origin?.origin;
    return dispatch(to === origin ? { ...opts, headers: withKey(opts.headers) } : opts, handler);
  }));
}
