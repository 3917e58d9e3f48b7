"""Answer models: the one declaration of every answer's shape (issue 15).

One module per ruleset (`kt2024`, `kt2018`, `kt2013`, `threshold`), plus the matchup grid
(`grid`), team matchups (`team_matchup`), the catalog reads (`catalog`) and the refusal body
(`errors`); `base` holds what
they share. Each mode's `<Ruleset><Mode>Result` is what its renderer builds (batch lines and
CLI lines are exactly its `as_json()`); `<Ruleset><Mode>Answer` adds the service members of a
REST answer (`canonicalKey`). The registry names each mode's result models
(`registry.Mode.results`), from which the OpenAPI document takes its response schemas; the
GraphQL output types can be derived from the same models.
"""
