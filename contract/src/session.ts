// Request bodies of the dashboard session endpoints: sign-in and the TOTP second factor.
import { z } from 'zod';

export const loginBodySchema = z.object({
  email: z.string().min(1).max(320).describe('E-mail address of the user'),
  password: z.string().min(1).max(1024).describe('The user\'s password'),
}).describe('Dashboard sign-in');

export const codeBodySchema = z.object({
  code: z.string().regex(/^[0-9]{6}$/, { error: 'must be a 6-digit code' }).describe('The current 6-digit code of the authenticator app'),
}).describe('A TOTP code');
