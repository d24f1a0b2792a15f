// PUT .../rules: the contract's check of the rule array, plus what only the gateway's engines can judge (a pattern
// RE2 cannot compile, Lua that does not compile or breaks a static limit), in the contract's message format.
import { checkRules, type ProxyKind, type Rule, type RuleEngineCheck } from '@tollgate/contract';
import { HttpError } from '../../http/errors.ts';
import { checkLambdaSource } from '../lua/compile.ts';
import { compileUserRegex } from './regex.ts';

const engineCheck: RuleEngineCheck = (rule) => {
  if ('pattern' in rule) {
    const error = compileUserRegex(rule.pattern, rule.regex_flags).error;
    if (error) return { field: 'pattern', message: error };
  }
  if (rule.rule_type === 'lambda') {
    const error = checkLambdaSource(rule.lua_code);
    if (error) return { field: 'lua_code', message: error };
  }
  return undefined;
};

export function validateRules(kind: ProxyKind, input: readonly unknown[]): Rule[] {
  const r = checkRules(kind, input, engineCheck);
  if (!r.ok) throw new HttpError(400, r.message);
  return r.value;
}
