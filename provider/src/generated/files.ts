// Every file generated from the provider's schema, with its repository path: the reference pages. `npm run gen`
// writes them (write.ts); generated.test.ts fails when a checked-in copy is stale.
import { tollgateProvider } from '../provider.ts';
import { renderProviderDocs, type GeneratedFile } from './docs.ts';

export function providerGeneratedFiles(): GeneratedFile[] {
  return renderProviderDocs(tollgateProvider({}));
}
