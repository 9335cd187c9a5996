// Reads `redocly lint --format=json` on stdin and fails unless it reports
// no error and no warning, listing each problem where it was found.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(0, 'utf8'));
for (const p of report.problems) {
  const at = p.location?.[0];
  const line = at?.start?.line ? `:${at.start.line}` : '';
  console.log(`${p.severity} ${p.ruleId} at ${at?.pointer ?? '#'}${line}: ${p.message}`);
}
const { errors, warnings } = report.totals;
console.log(`redocly ${report.version} lint (recommended): ${errors} errors, ${warnings} warnings`);
process.exit(errors + warnings > 0 ? 1 : 0);
