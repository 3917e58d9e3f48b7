"""The `killmath` command line: `main` parses the command and imports only the module that
runs it (`serve` the server, `catalog` rules and imports, `graphql` the schema's SDL); the
computing commands (`shoot`, `fight`, `batch`) live in `main` itself, since start-up is
most of what they cost."""
