// Module resolve hook for the conformance suite on Node 20 (see conformance-preload.mjs): its imports of `fs` get
// conformance-fs.mjs instead.
const SHIM = new URL('./conformance-fs.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}
