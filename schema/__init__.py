"""Request validation (pydantic), the API output shape and the GraphQL schema.

Thin by design: models validate and convert to engine scenarios; `report` renders engine
results in the one output shape shared by the CLI, REST and GraphQL (kt2024.md §10).
"""
