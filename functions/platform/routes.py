"""Platform's routes, read from routes.toml beside this file (functions/shared/routes.py)."""

from functions.shared.routes import load

ROUTES = load(__file__)
