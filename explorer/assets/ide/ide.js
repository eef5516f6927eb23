// Starts GraphiQL (the vendored UMD build; React, ReactDOM and GraphiQL are
// globals of the scripts before this one) against the endpoint the page
// names. Nothing here or in the libraries loads from another origin.
"use strict";
(() => {
  const root = document.getElementById("graphiql");

  // GraphiQL reads the schema with graphql-js's standard introspection
  // query; the API bounds introspection apart from its depth limit, so it is
  // sent as it is.
  const fetcher = GraphiQL.createFetcher({
    url: root.dataset.endpoint,
    // The API answers single results: no @defer or @stream, no subscriptions.
    enableIncrementalDelivery: false,
  });

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
