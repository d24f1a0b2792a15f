// Entry point of the toy plugin binary (the end-to-end test wraps the compiled file in a shell script).
import { serveProvider } from '../server.ts';
import { toyProvider } from './toy-provider.ts';

await serveProvider(toyProvider);
