"""Cross-origin calls, as data: the infrastructure builds the API's preflight answers and gateway responses from
here, and gives every API function the allowed origins in `CORS_ORIGINS_ENV`, from which the resolver
(functions/shared/http.py) answers an allowed `Origin` with the CORS headers. No Powertools here: infra imports it.

The API authenticates with a bearer token, never a cookie, so no answer allows credentials.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

# Comma-separated origins (`https://app.example,https://admin.example`); unset or empty: no cross-origin caller.
CORS_ORIGINS_ENV = "CORS_ALLOWED_ORIGINS"
# Request headers a page on an allowed origin may send, beyond the CORS-safelisted ones.
ALLOW_HEADERS = ("Authorization", "Content-Type", "Idempotency-Key", "X-Blueprints-Explain")
# Response headers such a page may read: the cost of a call, when to retry, a cached copy's tag.
EXPOSE_HEADERS = ("Server-Timing", "Retry-After", "ETag", "X-Blueprints-Items")
# How long a browser may reuse a preflight answer (Chromium caps it at 2 hours).
MAX_AGE_SECONDS = 600


def parse_origins(value: str | None) -> tuple[str, ...]:
    """`a,b` -> ("a", "b"); blanks dropped; each origin as a browser sends it: scheme://host[:port], no path."""
    origins = tuple(part.strip() for part in (value or "").split(",") if part.strip())
    for origin in origins:
        scheme, _, rest = origin.partition("://")
        if scheme not in ("http", "https") or not rest or "/" in rest or origin == "*":
            raise ValueError(f"{origin!r} is not an origin: write scheme://host[:port], e.g. https://app.example")
    return origins


def allowed_origins(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    return parse_origins((os.environ if environ is None else environ).get(CORS_ORIGINS_ENV))
