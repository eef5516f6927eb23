// Reads ilgraph's schema the way schema tools do: graphql-js's standard
// introspection query (getIntrospectionQuery, with every option on), posted
// to the URL given as the only argument; builds a client schema from the
// answer (buildClientSchema checks it) and prints {types, queryFields,
// errors} as JSON. Run by resolvers/conformance_test.go.
import { getIntrospectionQuery, buildClientSchema } from 'graphql';

const url = process.argv[2];
if (!url) {
  console.error('usage: node introspect.mjs GRAPHQL_URL');
  process.exit(2);
}
const query = getIntrospectionQuery({
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
});
const res = await fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
  body: JSON.stringify({ query }),
});
const body = await res.json();
const out = { status: res.status, errors: body.errors ?? [], types: 0, queryFields: [] };
if (body.data) {
  const schema = buildClientSchema(body.data);
  out.types = Object.keys(schema.getTypeMap()).length;
  out.queryFields = Object.keys(schema.getQueryType().getFields()).sort();
}
process.stdout.write(JSON.stringify(out) + '\n');
