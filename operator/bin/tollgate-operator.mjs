#!/usr/bin/env node
// The operator's entry point (also `tollgate operator`).
import { loadOperator } from './load.mjs';

const { runOperator } = await loadOperator();
process.exitCode = await runOperator(process.env, process.argv.slice(2));
