"""The killmath service: CLI, HTTP app, cache, settings and metrics."""
