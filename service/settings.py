"""Service settings, read from `KILLMATH_*` environment variables.

Every default suits a fresh machine: no Redis (in-process cache only), limits that keep one
request from starving the others, Redis timeouts short enough that a sick Redis costs a
request milliseconds, not seconds, and no access control (no API keys, no CORS headers).

Lists (`KILLMATH_API_KEYS`, `KILLMATH_CORS_ORIGINS`) are comma-separated, not JSON: they are
marked `NoDecode` (pydantic-settings' documented way to skip JSON decoding) and split by a
validator. Validation errors never echo their input (`hide_input_in_errors`): API keys, the
Redis URL and the cache key are secrets, and a settings error is printed at start-up.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Annotated, Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

ORIGIN = re.compile(r"https?://[^/\s]+")
DEFAULT_MEMORY_BUDGET = 320 * 2**20  # the manifests' 896 MiB limit less the default reserve


def _split(value: Any) -> Any:
    """`a, b,,c` -> ["a", "b", "c"]; anything but a string is left to pydantic."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="KILLMATH_", frozen=True, hide_input_in_errors=True
    )

    # cache
    redis_url: str | None = Field(None, description="L2 cache; unset = in-process cache only")
    redis_cluster: bool = Field(
        False, description="KILLMATH_REDIS_URL is a seed node of a Redis Cluster"
    )
    cache_ttl: int = Field(7 * 24 * 3600, ge=1, description="seconds a Redis entry lives")
    cache_entries: int = Field(20_000, ge=0, description="L1 (in-process LRU) size in entries")
    redis_timeout: float = Field(0.1, gt=0, description="seconds per Redis call before giving up")
    redis_pool_size: int = Field(32, ge=1, description="Redis connections per process")
    breaker_failures: int = Field(3, ge=1, description="consecutive Redis failures to open")
    breaker_cooldown: float = Field(5.0, gt=0, description="seconds before Redis is retried")
    cache_key: SecretStr | None = Field(
        None,
        description="secret that signs Redis entries (a keyed MAC); replicas sharing a Redis "
        "must share it; unset = a random key per process (`killmath serve`: per server)",
    )

    # limits
    max_body_bytes: int = Field(1_048_576, ge=1024, description="larger bodies get 413")
    # an upload is a file the importer reads (at most schema.importers.MAX_BYTES, 8 MB) or a
    # game system's files; a file's JSON-escaped copy in a GraphQL variable grows by its
    # quotes and newlines
    max_import_bytes: int = Field(
        16 * 1_048_576, ge=1024, description="bodies of /v1/import and GraphQL importProfiles"
    )
    max_batch: int = Field(1_000, ge=1, description="envelopes per /v1/batch")
    max_matchups: int = Field(1_000, ge=1, description="inputs per GraphQL matchups")
    max_grid_cells: int = Field(10_000, ge=1, description="cells per grid")
    # a token is ~1 ms of CPU (service.costs): 10,000 is ~10 s of one core, as deep as the
    # default bucket (a request costs at most the bucket), and above every request the load
    # tests and benchmarks send; the heavy fight is ~3,800
    max_request_tokens: int = Field(
        10_000,
        ge=1,
        description="the most tokens (≈ ms of CPU) one request may be estimated at; "
        "larger ones get 422 LIMIT_EXCEEDED before any work",
    )
    graphql_max_depth: int = Field(12, ge=1)
    graphql_max_aliases: int = Field(50, ge=1)
    # a document is parsed and validated on the event loop at about 13 µs a token: 20,000
    # tokens hold the loop for ~0.25 s at most; bulk inputs belong in variables, not literals
    graphql_max_tokens: int = Field(20_000, ge=1, description="tokens per GraphQL document")
    graphql_reply_cache_bytes: int = Field(
        64 * 1024 * 1024, ge=0, description="bytes of whole GraphQL replies kept; 0 = off"
    )

    # HTTP
    compress_min_bytes: int = Field(
        1024, ge=0, description="answers from this size are compressed (zstd, br, gzip); 0 = off"
    )
    metrics_port: int | None = Field(
        None, ge=1, le=65535, description="serve /metrics on this port only (killmath serve)"
    )
    # slow clients (service/protocol.py): a client that trickles its request holds a
    # connection as long as it likes unless the server cuts it off
    header_timeout: float = Field(
        10.0, gt=0, description="seconds a request's headers may take from its first byte; then 408"
    )
    body_min_rate: int = Field(
        500, ge=0, description="bytes/s a request body must keep up over each window; 0 = off"
    )
    body_window: float = Field(
        10.0, gt=0, description="seconds over which KILLMATH_BODY_MIN_RATE is measured"
    )
    keep_alive_timeout: float = Field(
        5.0, gt=0, description="seconds an idle connection is kept open (new or after a response)"
    )

    # compute
    time_budget: float = Field(30.0, gt=0, description="seconds per request before TIMEOUT")
    pool_size: int = Field(2, ge=1, description="engine threads per process")
    memory_limit: int | None = Field(
        None,
        ge=1,
        description="bytes the process may use in all (the container's memory limit: the "
        "manifests set it from resources.limits.memory); sets the default memory_budget",
    )
    # a warm process's own memory levels off at ~540 MiB with the default 20,000-entry L1
    # (benchmarks/bench_soak.py), so the reserve covers that and a margin
    memory_reserve: int = Field(
        576 * 2**20,
        ge=0,
        description="bytes of memory_limit kept for the process itself (code, caches, memos, "
        "requests), not for computations",
    )
    memory_budget: int | None = Field(
        None,
        ge=1,
        description="bytes the computations in flight may hold at once; unset = "
        "memory_limit - memory_reserve, or 320 MiB with no memory_limit",
    )

    # access control (service/auth.py)
    api_keys: Annotated[list[SecretStr], NoDecode] = Field(
        [], description="comma-separated Bearer keys for /graphql and /v1; empty = auth off"
    )
    rate_limit: float = Field(
        100.0, ge=0, description="tokens per second per key (a shoot costs 1); 0 = off"
    )
    rate_limit_burst: int = Field(
        10_000, ge=1, description="bucket depth: the most tokens a key may spend at once"
    )
    graphql_introspection: bool = Field(True, description="false: no __schema, no GraphiQL")
    cors_origins: Annotated[list[str], NoDecode] = Field(
        [], description="comma-separated allowed browser origins; empty = no CORS headers"
    )

    # data (schema.catalog.sources)
    catalog: str | None = Field(
        None,
        description="comma-separated catalog sources (BattleScribe directories, ktdash or "
        "killteamjson .json files); unset = the bundled starter catalog",
    )

    log_level: str = "INFO"

    @property
    def admitted_bytes(self) -> int:
        """The computations' memory budget (`service.admission`): `memory_budget`, else
        below the container's limit by the process's own reserve."""
        if self.memory_budget is not None:
            return self.memory_budget
        if self.memory_limit is not None:
            return max(self.memory_limit - self.memory_reserve, 64 * 2**20)
        return DEFAULT_MEMORY_BUDGET

    @field_validator("api_keys", mode="before")
    @classmethod
    def _keys(cls, value: Any) -> Any:
        return _split(value)

    @field_validator("cache_key")
    @classmethod
    def _cache_key(cls, value: SecretStr | None) -> SecretStr | None:
        """An empty secret signs nothing anyone could not sign: refused, not used."""
        if value is not None and not value.get_secret_value():
            raise ValueError("an empty key signs nothing; unset it for a random one")
        return value

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _origins(cls, value: Any) -> Any:
        """Exact origins (`https://app.example`) or `*`: a path or trailing slash would
        never match a browser's Origin header, so it is refused rather than ignored."""
        origins = _split(value)
        if isinstance(origins, list):
            for origin in origins:
                if origin != "*" and not ORIGIN.fullmatch(str(origin)):
                    raise ValueError(f"not an origin (scheme://host[:port]): {origin!r}")
        return origins


@lru_cache(maxsize=1)
def from_environment() -> Settings:
    return Settings()
