// Runs graphql-http's server audits (the GraphQL over HTTP conformance
// suite) against the URL given as the only argument and prints one JSON
// array on stdout: [{id, name, level, status, reason}], where level is MUST,
// SHOULD or MAY (the start of the audit's name) and status is "ok" or the
// audit's own "error" / "warn" / "notice". Run by
// resolvers/conformance_test.go; by hand: node audit.mjs http://127.0.0.1:8080/graphql
import { serverAudits } from 'graphql-http';

if (typeof fetch !== 'function') {
  console.error(`Node.js 18 or later is required (this is ${process.version}, without fetch)`);
  process.exit(2);
}
const url = process.argv[2];
if (!url) {
  console.error('usage: node audit.mjs GRAPHQL_URL');
  process.exit(2);
}

const results = [];
for (const audit of serverAudits({ url })) {
  let r;
  try {
    r = await audit.fn();
  } catch (err) {
    r = { id: audit.id, name: audit.name, status: 'error', reason: `the audit threw: ${err}` };
  }
  results.push({
    id: r.id,
    name: r.name,
    level: r.name.split(' ')[0],
    status: r.status,
    reason: r.status === 'ok' ? '' : r.reason,
  });
}
process.stdout.write(JSON.stringify(results, null, 1) + '\n');
