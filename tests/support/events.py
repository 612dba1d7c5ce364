"""API Gateway REST (v1) proxy events as the Cognito-authorized API delivers them: built by the local runtime's own
builder (local/awslambda/events.py), so functional tests feed handlers exactly what the local gateway sends them."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from local.awslambda.events import rest_claims
from local.awslambda.events import rest_event as build_event
from local.cognito import id_token_claims

HOST = "example.execute-api.us-east-1.amazonaws.com"


def claims_for(username: str, groups: tuple[str, ...] = ()) -> dict[str, str]:
    """The claims the REST API's Cognito authorizer passes for a local ID token of `username`: every value a string,
    groups comma-joined, the same `sub` as the local runtime's tokens."""
    return rest_claims(id_token_claims(username, groups))


def rest_event(method: str, url: str, *, resource: str, body: Any = None, claims: dict[str, str] | None = None,
               raw_body: str | None = None, stage: str = "dev") -> dict[str, Any]:
    """An event for `url` (path + query) matched to the template path `resource` (with {params})."""
    parts = urlsplit(url)
    names = re.findall(r"{(\w+)\+?}", resource)
    match = re.match("^" + re.sub(r"{\w+}", "([^/]+)", resource) + "$", parts.path)
    if match is None:
        raise ValueError(f"{parts.path} does not match {resource}")
    if raw_body is None and body is not None:
        raw_body = json.dumps(body)
    return build_event(method, parts.path, resource=resource, path_parameters=dict(zip(names, match.groups())),
                       query=parts.query, headers={"Content-Type": "application/json", "Host": HOST}, body=raw_body,
                       claims=claims, stage=stage)
