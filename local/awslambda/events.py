"""What a handler receives: the REST API (v1) Lambda proxy event and the Lambda context object.

One builder for the local gateway and the functional tests (`tests/support/events.py`), so both feed handlers the
same event, with one `sub` per user. Standard library only: the worker imports `LambdaContext` from here.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import string
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

ACCOUNT_ID = "123456789012"  # moto's default account, as in local/cloudformation/template.py


def rest_claims(claims: Mapping[str, Any]) -> dict[str, str]:
    """Claims as a REST API's Cognito authorizer passes them: every value a string, lists comma-joined."""
    def text(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (list, tuple)):
            return ",".join(str(v) for v in value)
        return json.dumps(value, separators=(",", ":")) if isinstance(value, Mapping) else str(value)

    return {key: text(value) for key, value in claims.items()}


@dataclass(frozen=True)
class RequestContext:
    """Per-request ids and time, shared by the event and the gateway's own responses."""
    request_id: str
    extended_request_id: str
    epoch_ms: int

    @staticmethod
    def new() -> RequestContext:
        extended = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(15)) + "="
        return RequestContext(str(uuid.uuid4()), extended, int(time.time() * 1000))

    @property
    def request_time(self) -> str:
        return time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(self.epoch_ms / 1000))


def rest_event(method: str, path: str, *, resource: str, path_parameters: Mapping[str, str] | None = None,
               query: str = "", headers: Iterable[tuple[str, str]] | Mapping[str, str] = (),
               body: bytes | str | None = None, claims: Mapping[str, Any] | None = None, stage: str = "dev",
               api_id: str = "local", resource_id: str = "local", source_ip: str = "127.0.0.1",
               context: RequestContext | None = None) -> dict[str, Any]:
    """The Lambda proxy event of a REST API for a request on stage-less `path`, matched to the method on `resource`
    (the template's path, with `{params}`). Headers are the client's plus those API Gateway adds; claims are those
    of a Cognito authorizer (stringified here); a body that is not UTF-8 is base64-encoded."""
    context = context or RequestContext.new()
    pairs = list(headers.items() if isinstance(headers, Mapping) else headers)
    present = {name.lower() for name, _ in pairs}
    added = {"X-Forwarded-For": source_ip, "X-Forwarded-Port": "443", "X-Forwarded-Proto": "https",
             "X-Amzn-Trace-Id": f"Root=1-{context.epoch_ms // 1000:08x}-{uuid.uuid4().hex[:24]}"}
    pairs += [(k, v) for k, v in added.items() if k.lower() not in present]
    queries = parse_qsl(query, keep_blank_values=True)
    single, query_single = dict(pairs), dict(queries)  # the last value of a repeated name, as API Gateway does
    multi = {name: [v for n, v in pairs if n == name] for name in single}
    query_multi = {name: [v for n, v in queries if n == name] for name in query_single}
    lowered = {k.lower(): v for k, v in single.items()}
    host = lowered.get("host", "127.0.0.1")
    if isinstance(body, bytes):
        try:
            text, encoded = (body.decode("utf-8") if body else None), False
        except UnicodeDecodeError:
            text, encoded = base64.b64encode(body).decode("ascii"), True
    else:
        text, encoded = body, False
    identity = dict.fromkeys(("cognitoIdentityPoolId", "accountId", "cognitoIdentityId", "caller", "principalOrgId",
                              "accessKey", "cognitoAuthenticationType", "cognitoAuthenticationProvider", "userArn",
                              "user"))
    identity.update(sourceIp=source_ip, userAgent=lowered.get("user-agent"))
    request_context: dict[str, Any] = {
        "resourceId": resource_id, "resourcePath": resource, "httpMethod": method.upper(),
        "extendedRequestId": context.extended_request_id, "requestTime": context.request_time,
        "path": f"/{stage}{path}" if path != "/" else f"/{stage}/", "accountId": ACCOUNT_ID, "protocol": "HTTP/1.1",
        "stage": stage, "domainPrefix": host.split(".")[0].split(":")[0], "requestTimeEpoch": context.epoch_ms,
        "requestId": context.request_id, "identity": identity, "domainName": host, "deploymentId": "local",
        "apiId": api_id,
    }
    if claims is not None:
        request_context["authorizer"] = {"claims": rest_claims(claims)}
    return {
        "resource": resource, "path": path, "httpMethod": method.upper(), "headers": single or None,
        "multiValueHeaders": multi or None, "queryStringParameters": query_single or None,
        "multiValueQueryStringParameters": query_multi or None, "pathParameters": dict(path_parameters or {}) or None,
        "stageVariables": None, "requestContext": request_context, "body": text, "isBase64Encoded": encoded,
    }


class LambdaContext:
    """The Lambda Python runtime's context object: what the worker passes to a handler, and what functional tests
    pass. Unset values come from the variables Lambda sets (the worker's environment), else from test defaults."""

    def __init__(self, request_id: str | None = None, deadline_ms: float | None = None,
                 invoked_function_arn: str | None = None, *, timeout_seconds: float = 30.0) -> None:
        env = os.environ
        self.aws_request_id = request_id or str(uuid.uuid4())
        self.function_name = env.get("AWS_LAMBDA_FUNCTION_NAME", "test")
        self.function_version = env.get("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        self.invoked_function_arn = invoked_function_arn or ":".join(
            ("arn:aws:lambda", env.get("AWS_REGION", "us-east-1"), ACCOUNT_ID, "function", self.function_name))
        self.memory_limit_in_mb = env.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")  # a string in Lambda too
        self.log_group_name = env.get("AWS_LAMBDA_LOG_GROUP_NAME", f"/aws/lambda/{self.function_name}")
        self.log_stream_name = env.get("AWS_LAMBDA_LOG_STREAM_NAME", "local")
        self.identity = self.client_context = self.tenant_id = None
        self._deadline_ms = deadline_ms if deadline_ms is not None else time.time() * 1000 + timeout_seconds * 1000

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int(self._deadline_ms - time.time() * 1000))
