import fs from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from './openapi';

/** The committed copy of the OpenAPI document, for client generators; a test keeps it in sync. */
export const OPENAPI_FILE = path.join(__dirname, '..', '..', 'openapi.json');
export const renderOpenApi = () => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;

if (require.main === module) {
  fs.writeFileSync(OPENAPI_FILE, renderOpenApi());
  process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
}
