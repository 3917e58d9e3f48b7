"""Service settings, read from `KILLMATH_*` environment variables.

Every default suits a fresh machine: no Redis (in-process cache only), limits that keep one
request from starving the others, and Redis timeouts short enough that a sick Redis costs a
request milliseconds, not seconds.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="KILLMATH_", frozen=True)

    # cache
    redis_url: str | None = Field(None, description="L2 cache; unset = in-process cache only")
    cache_ttl: int = Field(7 * 24 * 3600, ge=1, description="seconds a Redis entry lives")
    cache_entries: int = Field(20_000, ge=0, description="L1 (in-process LRU) size in entries")
    redis_timeout: float = Field(0.1, gt=0, description="seconds per Redis call before giving up")
    redis_pool_size: int = Field(32, ge=1, description="Redis connections per process")
    breaker_failures: int = Field(3, ge=1, description="consecutive Redis failures to open")
    breaker_cooldown: float = Field(5.0, gt=0, description="seconds before Redis is retried")

    # limits
    max_body_bytes: int = Field(1_048_576, ge=1024, description="larger bodies get 413")
    max_batch: int = Field(1_000, ge=1, description="envelopes per /v1/batch")
    max_matchups: int = Field(1_000, ge=1, description="inputs per GraphQL matchups")
    max_grid_cells: int = Field(10_000, ge=1, description="cells per grid")
    graphql_max_depth: int = Field(12, ge=1)
    graphql_max_aliases: int = Field(50, ge=1)
    graphql_max_tokens: int = Field(100_000, ge=1)
    graphql_reply_cache_bytes: int = Field(
        64 * 1024 * 1024, ge=0, description="bytes of whole GraphQL replies kept; 0 = off"
    )

    # compute
    time_budget: float = Field(30.0, gt=0, description="seconds per request before TIMEOUT")
    pool_size: int = Field(2, ge=1, description="engine threads per process")

    log_level: str = "INFO"


@lru_cache(maxsize=1)
def from_environment() -> Settings:
    return Settings()
