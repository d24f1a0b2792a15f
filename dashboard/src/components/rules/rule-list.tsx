// The ordered rule array as a table: move up and down (focus follows the moved rule, so the keyboard can keep
// moving it), enable or disable, edit, delete. Changes stay in the page until the section saves them.
import { useLayoutEffect, useState } from 'preact/hooks';
import type { DraftRule } from './rule-form.tsx';

/** What a rule does, in one line: its fields but the ones every rule has. */
export function summary(rule: DraftRule): string {
  const parts = Object.entries(rule)
    .filter(([k, v]) => !['rule_type', 'enabled', 'tools'].includes(k) && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
  const text = parts.join('; ');
  return text.length > 140 ? `${text.slice(0, 139)}…` : text;
}

export interface RuleListActions {
  move(from: number, to: number): void;
  setEnabled(index: number, on: boolean): void;
  edit(index: number): void;
  remove(index: number): void;
}

export function RuleList(p: { prefix: string; rules: DraftRule[]; actions: RuleListActions }) {
  const [focus, setFocus] = useState<string>();
  // Right after the commit, before the next key press can land on the button that stayed where the rule was.
  useLayoutEffect(() => {
    if (!focus) return;
    document.getElementById(focus)?.focus();
    setFocus(undefined);
  }, [focus, p.rules]);
  function move(i: number, dir: -1 | 1) {
    const to = i + dir;
    p.actions.move(i, to);
    // At either end the button in the same direction is disabled: focus the other one.
    const atEnd = to === 0 || to === p.rules.length - 1;
    const same = dir < 0 ? 'up' : 'down';
    const other = dir < 0 ? 'down' : 'up';
    setFocus(`${p.prefix}-${to}-${atEnd ? other : same}`);
  }
  if (p.rules.length === 0) return <p class="muted">No rules yet.</p>;
  return (
    <div class="table-wrap">
      <table aria-label="Rules, in evaluation order">
        <thead><tr><th scope="col">#</th><th scope="col">Type</th><th scope="col">Tools</th><th scope="col">Settings</th><th scope="col">Enabled</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {p.rules.map((r, i) => {
            const name = `rule ${i} (${r.rule_type})`;
            return (
              <tr key={i} class={r.enabled === false ? 'disabled' : undefined}>
                <td>{i}</td>
                <td><code>{r.rule_type}</code></td>
                <td>{Array.isArray(r.tools) ? r.tools.join(', ') : ''}</td>
                <td class="wrap">{summary(r)}</td>
                <td><input type="checkbox" checked={r.enabled !== false} aria-label={`Enabled: ${name}`} onChange={(e) => p.actions.setEnabled(i, e.currentTarget.checked)} /></td>
                <td class="actions">
                  <button type="button" class="secondary" id={`${p.prefix}-${i}-up`} disabled={i === 0} aria-label={`Move ${name} up`} onClick={() => move(i, -1)}>Up</button>
                  <button type="button" class="secondary" id={`${p.prefix}-${i}-down`} disabled={i === p.rules.length - 1} aria-label={`Move ${name} down`} onClick={() => move(i, 1)}>Down</button>
                  <button type="button" class="secondary" aria-label={`Edit ${name}`} onClick={() => p.actions.edit(i)}>Edit</button>
                  <button type="button" class="danger" aria-label={`Delete ${name}`} onClick={() => p.actions.remove(i)}>Delete</button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
