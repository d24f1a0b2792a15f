// Writes the OpenAPI document of the management API, built from the server's sources, stating the given version.
// Run through tsx with the tollgate-source condition (scripts/release.mjs does):
//   node --conditions=tollgate-source --import tsx scripts/release/openapi.mjs <version> <outFile>
import { writeFileSync } from 'node:fs';
import { buildRouter } from '../../server/src/api/routes/index.ts';
import { buildOpenApi } from '../../server/src/api/openapi/document.ts';

const [version, outFile] = process.argv.slice(2);
if (!version || !outFile) {
  console.error('usage: scripts/release/openapi.mjs <version> <outFile>');
  process.exit(2);
}
// As server/src/generated/files.ts does: registering the routes calls none of the services.
writeFileSync(outFile, `${JSON.stringify(buildOpenApi(buildRouter({}), version), null, 2)}\n`);
