// What of a failed management API answer may go into an object's status and Events. The API's URL comes from a
// Secret that the namespace's users write, so the server may be anyone's: its words appear only as a short printable
// string (its `{error}` field), never as its body, which could be huge, binary, or made to spoof kubectl's output.
import type { ApiError } from '@tollgate/contract';

export const MAX_MESSAGE_CHARS = 200;

/** Line breaks and tabs: kept as word breaks. */
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
/** Control and format characters (bidi overrides, zero-width), lone surrogates, private use, unassigned. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/gu;

/** `text` without control characters, on one line, at most `max` characters (an ellipsis says it was cut). */
export function printable(text: string, max = MAX_MESSAGE_CHARS): string {
  // Only a bounded prefix is looked at: the work does not grow with what the server sent.
  const head = text.slice(0, max * 4);
  const clean = [...head.replace(BREAKS, ' ').replace(UNPRINTABLE, '').replace(/ {2,}/g, ' ').trim()];
  if (clean.length <= max && head.length === text.length) return clean.join('');
  return `${clean.slice(0, max).join('').trimEnd()}…`;
}

/** The failure as the operator may repeat it: the `{error}` string made printable, or a description of the body. */
export function apiErrorSummary(err: ApiError): string {
  const body = err.body;
  // No body: the client's own words (unreachable, redirect), which name the endpoint from the Secret.
  if (!body) return printable(err.message) || 'no answer';
  const said = body.errorField ? printable(err.message) : '';
  if (said) return said;
  if (body.bytes === 0) return 'empty body';
  if (body.json) return `JSON body without a printable error, ${body.bytes} bytes`;
  return `non-JSON body, ${body.bytes} bytes`;
}
