"""Lambda proxy integration (REST API v1): the HTTP request as an event, the result as a response.

Why separate from the routes: this is the contract handlers are written against (Powertools'
`APIGatewayRestResolver` reads `path`, `httpMethod`, `multiValueHeaders`, the authorizer claims...),
so it is kept in one small module that mirrors API Gateway's documented event and response format.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import secrets
import string
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from local.template import ACCOUNT_ID

if TYPE_CHECKING:
    from local.apigw import Match, RestApi

log = logging.getLogger("local.apigw")

_ID_CHARS = string.ascii_letters + string.digits


@dataclass(frozen=True)
class HttpRequest:
    method: str
    raw_path: str  # as received, without query string, percent-encoding kept
    query: str
    headers: Sequence[tuple[str, str]]
    body: bytes
    source_ip: str = "127.0.0.1"

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        values = [v for k, v in self.headers if k.lower() == lowered]
        return values[-1] if values else None


@dataclass
class HttpResponse:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


@dataclass(frozen=True)
class RequestContext:
    """Per-request ids and times, shared by the event and gateway-response templates."""

    request_id: str
    extended_request_id: str
    epoch_ms: int

    @staticmethod
    def new() -> RequestContext:
        return RequestContext(
            request_id=str(uuid.uuid4()),
            extended_request_id="".join(secrets.choice(_ID_CHARS) for _ in range(15)) + "=",
            epoch_ms=int(time.time() * 1000),
        )

    @property
    def request_time(self) -> str:
        return time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(self.epoch_ms / 1000))


class MalformedResponse(Exception):
    """The function's result is not a valid Lambda proxy response (API Gateway answers 502)."""


def stringify_claims(claims: Mapping[str, Any]) -> dict[str, str]:
    """Claims as API Gateway REST passes them: every value a string, lists comma-joined."""
    result = {}
    for key, value in claims.items():
        if isinstance(value, bool):
            result[key] = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            result[key] = ",".join(str(v) for v in value)
        elif isinstance(value, Mapping):
            result[key] = json.dumps(value, separators=(",", ":"))
        else:
            result[key] = str(value)
    return result


def build_event(
    api: RestApi,
    match: Match,
    request: HttpRequest,
    context: RequestContext,
    claims: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The REST API (v1) Lambda proxy event for a matched request."""
    path = api.strip_stage(request.raw_path)
    headers: dict[str, str] = {}
    multi_headers: dict[str, list[str]] = {}
    for name, value in _gateway_headers(request, context):
        headers[name] = value
        multi_headers.setdefault(name, []).append(value)
    query: dict[str, str] = {}
    multi_query: dict[str, list[str]] = {}
    for name, value in parse_qsl(request.query, keep_blank_values=True):
        query[name] = value
        multi_query.setdefault(name, []).append(value)
    body, is_base64 = _event_body(request.body)
    host = request.header("Host") or "127.0.0.1"
    user_agent = request.header("User-Agent")
    request_context: dict[str, Any] = {
        "resourceId": match.method.resource_id,
        "resourcePath": match.method.resource_path,
        "httpMethod": request.method.upper(),
        "extendedRequestId": context.extended_request_id,
        "requestTime": context.request_time,
        "path": f"/{api.stage}{path}" if path != "/" else f"/{api.stage}/",
        "accountId": ACCOUNT_ID,
        "protocol": "HTTP/1.1",
        "stage": api.stage,
        "domainPrefix": host.split(".")[0].split(":")[0],
        "requestTimeEpoch": context.epoch_ms,
        "requestId": context.request_id,
        "identity": {
            "cognitoIdentityPoolId": None,
            "accountId": None,
            "cognitoIdentityId": None,
            "caller": None,
            "sourceIp": request.source_ip,
            "principalOrgId": None,
            "accessKey": None,
            "cognitoAuthenticationType": None,
            "cognitoAuthenticationProvider": None,
            "userArn": None,
            "userAgent": user_agent,
            "user": None,
        },
        "domainName": host,
        "deploymentId": "local",
        "apiId": api.api_id,
    }
    if claims is not None:
        request_context["authorizer"] = {"claims": stringify_claims(claims)}
    return {
        "resource": match.method.resource_path,
        "path": path,
        "httpMethod": request.method.upper(),
        "headers": headers or None,
        "multiValueHeaders": multi_headers or None,
        "queryStringParameters": query or None,
        "multiValueQueryStringParameters": multi_query or None,
        "pathParameters": dict(match.path_parameters) or None,
        "stageVariables": None,
        "requestContext": request_context,
        "body": body,
        "isBase64Encoded": is_base64,
    }


def _gateway_headers(request: HttpRequest, context: RequestContext) -> list[tuple[str, str]]:
    """Client headers plus the ones API Gateway (and its CloudFront) add."""
    headers = list(request.headers)
    present = {name.lower() for name, _ in headers}
    added = {
        "X-Forwarded-For": request.source_ip,
        "X-Forwarded-Port": "443",
        "X-Forwarded-Proto": "https",
        "X-Amzn-Trace-Id": f"Root=1-{context.epoch_ms // 1000:08x}-{uuid.uuid4().hex[:24]}",
    }
    headers.extend((k, v) for k, v in added.items() if k.lower() not in present)
    return headers


def _event_body(body: bytes) -> tuple[str | None, bool]:
    if not body:
        return None, False
    try:
        return body.decode("utf-8"), False
    except UnicodeDecodeError:
        return base64.b64encode(body).decode("ascii"), True


def proxy_response(result: Any, context: RequestContext) -> HttpResponse:
    """The HTTP response for a Lambda proxy result; `MalformedResponse` if API Gateway would 502."""
    if not isinstance(result, Mapping):
        raise MalformedResponse(f"result is {type(result).__name__}, not an object")
    status = result.get("statusCode")
    if isinstance(status, str) and status.isdigit():
        status = int(status)
    if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
        raise MalformedResponse(f"statusCode {status!r} is not an HTTP status code")
    unknown = set(result) - {
        "statusCode",
        "headers",
        "multiValueHeaders",
        "body",
        "isBase64Encoded",
    }
    if unknown:  # not fatal here; worth a look (e.g. HTTP API v2 fields such as "cookies")
        log.warning("proxy response has keys API Gateway REST ignores: %s", sorted(unknown))
    body = result.get("body")
    if body is not None and not isinstance(body, str):
        raise MalformedResponse(f"body is {type(body).__name__}, not a string")
    single = result.get("headers") or {}
    multi = result.get("multiValueHeaders") or {}
    if not isinstance(single, Mapping) or not isinstance(multi, Mapping):
        raise MalformedResponse("headers/multiValueHeaders must be objects")
    headers: list[tuple[str, str]] = []
    for name, values in multi.items():
        if not isinstance(values, list):
            raise MalformedResponse(f"multiValueHeaders[{name!r}] is not a list")
        headers.extend((str(name), _header_value(v)) for v in values)
    multi_names = {str(name).lower() for name in multi}
    headers.extend(
        (str(n), _header_value(v)) for n, v in single.items() if str(n).lower() not in multi_names
    )
    if result.get("isBase64Encoded"):
        try:
            payload = base64.b64decode(body or "", validate=True)
        except (binascii.Error, ValueError) as exc:
            raise MalformedResponse(f"body is not valid base64: {exc}") from exc
    else:
        payload = (body or "").encode("utf-8")
    if not any(name.lower() == "content-type" for name, _ in headers):
        headers.append(("Content-Type", "application/json"))
    return HttpResponse(status, headers + tracing_headers(context), payload)


def _header_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def tracing_headers(context: RequestContext) -> list[tuple[str, str]]:
    return [
        ("x-amzn-RequestId", context.request_id),
        ("x-amz-apigw-id", context.extended_request_id),
    ]
