"""Answer models: the shapes the service answers, for OpenAPI and for tests that hold real
answers to them."""
