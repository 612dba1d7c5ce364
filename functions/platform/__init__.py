"""The platform: GET /, GET /health, the OpenAPI docs and the model explorer (functions/platform/domain.toml)."""

# "on" where the stack routes GET /explorer (infra/domains/platform.py): GET / links it only then.
EXPLORER_ENV = "BLUEPRINTS_EXPLORER"
