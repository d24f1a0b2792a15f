// A module resolve hook for running from the TypeScript sources: it adds the `tollgate-source` export condition, so
// that workspace packages (`@tollgate/contract`) resolve to their src/ rather than to a build that may be stale or
// absent. Registered by sources.mjs before tsx (the same thing `node --conditions=tollgate-source` does).
export async function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, 'tollgate-source'] });
}
