// Parsing of the client-key request bodies: the name first, with the spec's exact messages, then the contract's
// schemas; custom tags in a reserved namespace are refused with their index.
import {
  createKeyBodySchema, customTagProblem, KEY_NAME_RE, MAX_KEY_NAME, updateKeyBodySchema, type CreateKeyBody,
  type UpdateKeyBody,
} from '@tollgate/contract';
import { badRequest, Msg } from '../http/errors.ts';
import { parseOr400 } from '../http/validate.ts';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The name first, with the spec's two messages; then the rest of the body. */
export function parseCreateKeyBody(input: unknown): CreateKeyBody {
  const name = isRecord(input) ? input.name : undefined;
  if (name === undefined || name === null || name === '') throw badRequest(Msg.nameRequired);
  if (typeof name !== 'string' || !KEY_NAME_RE.test(name)) throw badRequest(Msg.invalidName);
  if (name.length > MAX_KEY_NAME) throw badRequest(`name: must be at most ${MAX_KEY_NAME} characters`);
  return parseOr400(createKeyBodySchema, input);
}

export function parseUpdateKeyBody(input: unknown, currentName: string): UpdateKeyBody {
  const body = parseOr400(updateKeyBodySchema, input);
  if (body.name !== undefined && body.name !== currentName) {
    throw badRequest('name: is fixed at creation; delete the key and create a new one to rename it');
  }
  return body;
}

/** 400 naming `customTags[i]` for the first custom tag that is reserved or unprintable. */
export function checkCustomTags(tags: readonly string[]): void {
  tags.forEach((tag, i) => {
    const problem = customTagProblem(tag);
    if (problem) throw badRequest(`customTags[${i}]: ${problem}`);
  });
}
