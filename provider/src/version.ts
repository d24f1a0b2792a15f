// The provider's version is its package.json's (scripts/version.mjs keeps that equal to the root version). The release
// bundle (provider/scripts/bundle.mjs) replaces this module with the release's version, so the single executable
// reads no file.
import { readFileSync } from 'node:fs';

export const PROVIDER_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
