// A WHATWG fetch whose connections go through a given undici dispatcher (a pinned agent: a host name that resolves
// to the gateway's loopback address). Node's own fetch takes no dispatcher from the undici package, so tests use
// that package's fetch, whose declared types are its own copy of the ones `typeof fetch` names.
import { fetch as undiciFetch, type Dispatcher } from 'undici';

type UndiciFetch = typeof undiciFetch;

export function fetchVia(dispatcher: Dispatcher): typeof fetch {
  const viaDispatcher = (input: Parameters<UndiciFetch>[0], init?: Parameters<UndiciFetch>[1]) => undiciFetch(input, { ...init, dispatcher });
  // The same API declared twice (the undici package and Node's bundled undici-types): the compiler checks that the
  // two signatures are comparable, and SDKs that take `typeof fetch` get the one they name.
  return viaDispatcher as typeof fetch;
}
