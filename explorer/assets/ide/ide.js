// Starts GraphiQL (the vendored UMD build; React, ReactDOM and GraphiQL are
// globals of the scripts before this one) against the endpoint the page
// names. Nothing here or in the libraries loads from another origin.
"use strict";
(() => {
  const root = document.getElementById("graphiql");

  // GraphiQL reads the schema with graphql-js's standard introspection
  // query; the API bounds introspection apart from its depth limit, so it is
  // sent as it is.
  // A browser signed in to the explorer sends its session cookie here too,
  // and the API then wants the session's CSRF token on every POST, which
  // GET /auth/session gives to this origin only (docs/operations.md). The
  // token is asked for once, and again when a request is refused (403)
  // because the session changed meanwhile.
  let csrf = null;
  const loadCSRF = () => (csrf = fetch("/auth/session", { headers: { Accept: "application/json" }, cache: "no-store" })
    .then((r) => (r.ok ? r.json() : {}))
    .then((s) => (s && s.csrfToken) || "", () => ""));
  const csrfFetch = async (url, init = {}) => {
    if (csrf === null) loadCSRF();
    const send = async () => {
      const headers = new Headers(init.headers || {});
      const token = await csrf;
      if (token) headers.set("X-CSRF-Token", token);
      return fetch(url, { ...init, headers, credentials: "same-origin" });
    };
    const resp = await send();
    if (resp.status !== 403) return resp;
    const before = await csrf;
    loadCSRF();
    return (await csrf) !== before ? send() : resp;
  };

  const fetcher = GraphiQL.createFetcher({
    url: root.dataset.endpoint,
    fetch: csrfFetch,
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
