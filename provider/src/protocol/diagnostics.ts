// Framework diagnostics → protocol diagnostics. A path step that is a string names an attribute inside an object
// but a key inside a map, so the steps are resolved against the value's cty type.
import type { CtyType, Diagnostic, Path } from '../framework/types.ts';
import { stepType } from './types-of.ts';
import type { WireAttributePath, WireDiagnostic, WireStep } from './wire.ts';

export function toWireDiagnostics(diagnostics: readonly Diagnostic[], type?: CtyType): WireDiagnostic[] {
  return diagnostics.map((d) => toWireDiagnostic(d, type));
}

function toWireDiagnostic(diagnostic: Diagnostic, type?: CtyType): WireDiagnostic {
  const wire: WireDiagnostic = {
    severity: diagnostic.severity === 'error' ? 'ERROR' : 'WARNING',
    summary: diagnostic.summary,
    detail: diagnostic.detail ?? '',
  };
  if (diagnostic.path !== undefined && diagnostic.path.length > 0) wire.attribute = toWirePath(diagnostic.path, type);
  return wire;
}

/**
 * Terraform (1.11) places a diagnostic in the configuration by walking the path through nested *blocks* and then
 * one attribute, optionally indexed; a step inside an attribute's value (a nested attribute, as all of ours are)
 * makes it give up and point at the whole resource block. So the steps are cut after the first attribute and its
 * index or key: terraform then underlines `budget = {...}` or the list element `rules[2]`, and the detail text
 * still names the full field.
 */
export function toWirePath(path: Path, type?: CtyType): WireAttributePath {
  const steps: WireStep[] = [];
  let current: CtyType | undefined = type;
  for (const step of path) {
    steps.push(toWireStep(step, current));
    current = current === undefined ? undefined : stepType(current, step);
  }
  const keep = steps[1] && !('attribute_name' in steps[1]) ? 2 : 1;
  steps.length = Math.min(steps.length, keep);
  return { steps };
}

function toWireStep(step: string | number, type: CtyType | undefined): WireStep {
  if (typeof step === 'number') return { element_key_int: step };
  const isMap = Array.isArray(type) && type[0] === 'map';
  return isMap ? { element_key_string: step } : { attribute_name: step };
}

/** Every failure inside an RPC ends here: a thrown error is reported, never allowed to break the call. */
export function errorDiagnostic(summary: string, error: unknown): Diagnostic {
  return { severity: 'error', summary, detail: error instanceof Error ? error.message : String(error) };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
