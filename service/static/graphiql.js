// GraphiQL against this page's own address (the GraphQL endpoint serves the page on GET).
// The configuration rides in a JSON block, so the page runs no inline script. Headers
// (an API key) are never written to localStorage: shouldPersistHeaders stays off.
const config = JSON.parse(document.getElementById("graphiql-config").textContent);
const fetcher = GraphiQL.createFetcher({ url: window.location.pathname });
ReactDOM.createRoot(document.getElementById("graphiql")).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: config.defaultQuery,
    defaultHeaders: config.defaultHeaders,
    defaultEditorToolsVisibility: config.defaultHeaders ? "headers" : false,
    shouldPersistHeaders: false,
  }),
);
