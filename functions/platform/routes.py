"""Platform's routes, read from routes.toml beside this file (functions/shared/routes.py)."""

from functions.shared.routes import load

ROUTES = load(__file__)

# "on" where the stack routes GET /explorer (infra/domains/platform.py): GET / links it only then.
EXPLORER_ENV = "BLUEPRINTS_EXPLORER"
