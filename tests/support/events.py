"""API Gateway REST (v1) proxy events as the Cognito-authorized API delivers them."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any
from urllib.parse import urlsplit, parse_qsl


def claims_for(username: str, groups: tuple[str, ...] = ()) -> dict[str, str]:
    """REST API claims: every value a string, groups comma-joined."""
    claims = {
        "sub": str(uuid.uuid5(uuid.NAMESPACE_URL, f"user:{username}")),
        "cognito:username": username,
        "email": f"{username}@example.com",
        "token_use": "id",
    }
    if groups:
        claims["cognito:groups"] = ",".join(groups)
    return claims


def rest_event(
    method: str,
    url: str,
    *,
    resource: str,
    body: Any = None,
    claims: dict[str, str] | None = None,
    raw_body: str | None = None,
    stage: str = "dev",
) -> dict[str, Any]:
    """An event for `url` (path + query) matched to the template path `resource` (with {params})."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True)) or None
    names = re.findall(r"{(\w+)\+?}", resource)
    pattern = "^" + re.sub(r"{\w+}", "([^/]+)", resource) + "$"
    match = re.match(pattern, parts.path)
    if match is None:
        raise ValueError(f"{parts.path} does not match {resource}")
    path_params = dict(zip(names, match.groups())) or None
    headers = {"Content-Type": "application/json", "Host": "example.execute-api.us-east-1.amazonaws.com"}
    if raw_body is None and body is not None:
        raw_body = json.dumps(body)
    context: dict[str, Any] = {
        "resourceId": "abc123",
        "resourcePath": resource,
        "httpMethod": method,
        "path": f"/{stage}{parts.path}",
        "stage": stage,
        "requestId": str(uuid.uuid4()),
        "accountId": "123456789012",
        "apiId": "example",
        "protocol": "HTTP/1.1",
        "identity": {"sourceIp": "127.0.0.1", "userAgent": "pytest"},
        "requestTimeEpoch": 0,
    }
    if claims is not None:
        context["authorizer"] = {"claims": claims}
    return {
        "resource": resource,
        "path": parts.path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": query,
        "multiValueQueryStringParameters": {k: [v] for k, v in query.items()} if query else None,
        "pathParameters": path_params,
        "stageVariables": None,
        "requestContext": context,
        "body": raw_body,
        "isBase64Encoded": False,
    }
