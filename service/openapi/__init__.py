"""The OpenAPI door: `document` builds `/openapi.json` from the pydantic models and the
route modules' operations, `catalog` the catalog operations' examples, `http` the
conditional-request headers every cached answer declares."""
