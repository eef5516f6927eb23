// Starts GraphiQL (the vendored UMD build; React, ReactDOM and GraphiQL are
// globals of the scripts before this one) against the endpoint the page
// names. Nothing here or in the libraries loads from another origin.
"use strict";
(() => {
  const root = document.getElementById("graphiql");

  // GraphiQL reads the schema with graphql-js's standard introspection
  // query, which is nested 15 levels deep; the API refuses operations
  // nested deeper than its depth limit (12 by default, --max-depth). The
  // IDE asks for the same schema with type references unwrapped at most 6
  // levels (T, T!, [T!], [T!]!, … up to [[T!]!]! and one more), which
  // covers every type the schema has and fits the default limit.
  const typeRef = (n) => (n === 0 ? "kind name" : `kind name ofType { ${typeRef(n - 1)} }`);
  const introspection = `query IntrospectionQuery {
  __schema {
    queryType { name }
    mutationType { name }
    subscriptionType { name }
    types { ...FullType }
    directives { name description locations args(includeDeprecated: true) { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind
  name
  description
  fields(includeDeprecated: true) {
    name
    description
    args(includeDeprecated: true) { ...InputValue }
    type { ...TypeRef }
    isDeprecated
    deprecationReason
  }
  inputFields(includeDeprecated: true) { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue isDeprecated deprecationReason }
fragment TypeRef on __Type { ${typeRef(6)} }`;

  const send = GraphiQL.createFetcher({
    url: root.dataset.endpoint,
    // The API answers single results: no @defer or @stream, no subscriptions.
    enableIncrementalDelivery: false,
  });
  const fetcher = (params, opts) =>
    send(params.operationName === "IntrospectionQuery" ? { ...params, query: introspection } : params, opts);

  const defaultQuery = `# ilgraph's GraphQL API: press the run button (Ctrl-Enter) to ask.
# The schema's descriptions are in the documentation explorer (the book icon).
{
  stats { cases organizations }
  cases(first: 5) { totalCount nodes { id date title { en ko } } }
}
`;
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, { fetcher, defaultQuery, defaultEditorToolsVisibility: true }),
  );
})();
