"""kt2024 requests: importing this package registers its modes."""

from . import fight, shoot

__all__ = ["fight", "shoot"]
