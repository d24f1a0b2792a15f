#!/usr/bin/env node
// The operator's entry point (also `tollgate operator`): operator/dist when it is built, see load.mjs.
import { loadOperator } from './load.mjs';
import { NO_RUNTIME } from '../../server/bin/sources.mjs';

let operator;
try {
  operator = await loadOperator();
} catch (err) {
  if (err.code !== NO_RUNTIME) throw err;
  process.stderr.write(`tollgate operator: ${err.message}\n`);
  process.exit(1);
}
process.exitCode = await operator.runOperator(process.env, process.argv.slice(2));
