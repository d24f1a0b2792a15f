// Labelled inputs and the error line every form shares. Every control has a visible label (axe and keyboard users),
// and an error is announced (role="alert") in the API's own words.
import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';

let next = 0;
/** A stable id per mounted field, so a label and its input pair up. */
export const newId = (prefix: string) => `${prefix}-${++next}`;

export function Field(p: { label: string; id: string; hint?: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={p.id}>{p.label}</label>
      {p.children}
      {p.hint && <p class="hint" id={`${p.id}-hint`}>{p.hint}</p>}
    </div>
  );
}

export function ErrorLine(p: { message: string | undefined }) {
  return p.message ? <p class="error" role="alert">{p.message}</p> : null;
}

export function Button(p: ButtonHTMLAttributes<HTMLButtonElement> & { busy?: boolean }) {
  const { busy, children, ...rest } = p;
  return <button type="button" {...rest} disabled={busy || rest.disabled} aria-busy={busy ? 'true' : undefined}>{children}</button>;
}
