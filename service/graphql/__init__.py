"""The GraphQL door, everything that imports strawberry: the schema's types (`scalars`,
`inputs`, `outputs`, `types`, one module per family of fields: `kt2024`, `rulesets`,
`catalog`, `versus`, `team`), its assembly and limits (`schema`, `limits`, `execution`),
and its HTTP side (`routes`: `/graphql` over HTTP, `http`: GraphQL-over-HTTP status and
bodies, `cost`: charging, `uploads`: multipart imports). Types are derived from the pydantic
models of `schema/`, never declared a second time."""
