// Runs every graphql-http server audit against the URL given as the first argument and
// prints one JSON line per audit: {"id", "name", "status", "reason"}. The audits' own names
// start with MUST, SHOULD or MAY (the GraphQL-over-HTTP spec's keywords).
import { serverAudits } from 'graphql-http';

const url = process.argv[2];
for (const audit of serverAudits({ url })) {
  const result = await audit.fn();
  const line = { id: audit.id, name: audit.name, status: result.status };
  if (result.status !== 'ok') line.reason = result.reason;
  console.log(JSON.stringify(line));
}
