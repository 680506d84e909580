// The package registry this project is built against mirrors only the linux-x64 builds of
// platform-specific optional packages. `npm install` then records optional dependencies it
// could not resolve, and `npm ci` rejects the lock file as out of sync. This drops those
// unresolvable optional entries. Run it after `npm install` changes package-lock.json.
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
let removed = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  if (!pkg.optionalDependencies) continue;
  for (const name of Object.keys(pkg.optionalDependencies)) {
    const nested = `${key ? `${key}/` : ''}node_modules/${name}`;
    if (!lock.packages[nested] && !lock.packages[`node_modules/${name}`]) {
      delete pkg.optionalDependencies[name];
      removed++;
    }
  }
  if (Object.keys(pkg.optionalDependencies).length === 0) delete pkg.optionalDependencies;
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`pruned ${removed} unresolvable optional dependencies\n`);
