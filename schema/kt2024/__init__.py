"""kt2024 requests: importing this package registers its modes."""

from . import shoot

__all__ = ["shoot"]
