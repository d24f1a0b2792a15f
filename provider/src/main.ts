// The provider process terraform starts (through the script `npm run provider:install` writes).
import { serveProvider } from './protocol/server.ts';
import { tollgateProvider } from './provider.ts';

await serveProvider(tollgateProvider());
