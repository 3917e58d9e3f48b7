"""The REST door: one module per family of routes (`compute`: `/v1/shoot`, `/v1/fight`,
batches and grids; `team`: `/v1/team-matchup`; `catalog`: the catalog reads, imports and
weapon rules; `health`: probes and metrics). Each exposes `routes` and, where it has
operations, `openapi_paths`, which `service.app` and `service.openapi` collect."""
