"""API Gateway REST API behaviour from the template: routes, authorizers, gateway responses, stage throttling.

Why a faithful copy: clients are written against what API Gateway answers, including its own
401/403/404 refusals as customised by the template's GatewayResponses, and routing decides which
function runs. Everything is built from the `AWS::ApiGateway::*` resources and is pure (no
sockets); `local.proxy` makes events and responses, `local.server` puts it all behind HTTP.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote

from local.proxy import HttpRequest, HttpResponse, RequestContext, tracing_headers
from local.resources import FUNCTION_TYPE, StackResources
from local.template import ACCOUNT_ID, TemplateError

log = logging.getLogger("local.apigw")

MAX_BODY_BYTES = 10 * 1024 * 1024
MISSING_AUTHENTICATION_TOKEN = "MISSING_AUTHENTICATION_TOKEN"
UNAUTHORIZED = "UNAUTHORIZED"
REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
THROTTLED = "THROTTLED"
DEFAULT_4XX = "DEFAULT_4XX"
DEFAULT_5XX = "DEFAULT_5XX"

# Default status and message of the gateway responses the local runtime can produce.
_DEFAULTS: Mapping[str, tuple[int, str]] = {
    MISSING_AUTHENTICATION_TOKEN: (403, "Missing Authentication Token"),
    UNAUTHORIZED: (401, "Unauthorized"),
    "ACCESS_DENIED": (403, "Forbidden"),
    REQUEST_TOO_LARGE: (413, "Request Too Large"),
    THROTTLED: (429, "Too Many Requests"),
    "INTEGRATION_FAILURE": (504, "Internal server error"),
    "INTEGRATION_TIMEOUT": (504, "Endpoint request timed out"),
    DEFAULT_5XX: (502, "Internal server error"),
}
_ERROR_TYPES: Mapping[str, str] = {
    MISSING_AUTHENTICATION_TOKEN: "MissingAuthenticationTokenException",
    UNAUTHORIZED: "UnauthorizedException",
    "ACCESS_DENIED": "AccessDeniedException",
    REQUEST_TOO_LARGE: "RequestTooLargeException",
    THROTTLED: "TooManyRequestsException",
    DEFAULT_5XX: "InternalServerErrorException",
}


# --------------------------------------------------------------------------------------------
# Model


@dataclass(frozen=True)
class Authorizer:
    logical_id: str
    type: str
    header: str | None  # from IdentitySource "method.request.header.<Name>"


@dataclass(frozen=True)
class MockResponse:
    """A MOCK integration with static responses, e.g. the CORS preflight CDK generates."""

    status: int
    headers: Mapping[str, str]


@dataclass(frozen=True)
class Method:
    http_method: str
    resource_path: str
    resource_id: str
    authorization_type: str = "NONE"
    authorizer: Authorizer | None = None
    function: str | None = None  # logical id of the Lambda function (AWS_PROXY integrations)
    mock: MockResponse | None = None


@dataclass
class ResourceNode:
    path: str
    resource_id: str
    literals: dict[str, ResourceNode] = field(default_factory=dict)
    param: tuple[str, ResourceNode] | None = None
    greedy: tuple[str, ResourceNode] | None = None
    methods: dict[str, Method] = field(default_factory=dict)

    def child(self, path_part: str, resource_id: str) -> ResourceNode:
        path = f"{self.path.rstrip('/')}/{path_part}"
        if path_part.startswith("{") and path_part.endswith("+}"):
            if self.greedy is None:
                self.greedy = (path_part[1:-2], ResourceNode(path, resource_id))
            return self.greedy[1]
        if path_part.startswith("{") and path_part.endswith("}"):
            if self.param is None:
                self.param = (path_part[1:-1], ResourceNode(path, resource_id))
            return self.param[1]
        return self.literals.setdefault(path_part, ResourceNode(path, resource_id))


@dataclass(frozen=True)
class GatewayResponse:
    response_type: str
    status: int | None
    template: str | None
    headers: Mapping[
        str, str
    ]  # header name -> mapping expression ("'static'" or method.request...)


@dataclass(frozen=True)
class Throttle:
    """Request throttling: a bucket of `burst` tokens refilled at `rate` tokens a second, one token a request."""

    rate: float
    burst: int


@dataclass(frozen=True)
class Match:
    method: Method
    path_parameters: Mapping[str, str]


@dataclass
class RestApi:
    logical_id: str
    api_id: str
    stage: str
    root: ResourceNode
    gateway_responses: dict[str, GatewayResponse] = field(default_factory=dict)
    throttle: Throttle | None = None  # the stage's default method throttling (None: the template sets none)

    def routes(self) -> list[Method]:
        found: list[Method] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            found.extend(node.methods.values())
            stack.extend(node.literals.values())
            stack.extend(pair[1] for pair in (node.param, node.greedy) if pair is not None)
        return sorted(found, key=lambda m: (m.resource_path, m.http_method))

    def strip_stage(self, path: str) -> str:
        """Requests may carry the `/<stage>` prefix of the deployed URL, or not."""
        prefix = f"/{self.stage}"
        if path == prefix:
            return "/"
        if path.startswith(prefix + "/"):
            return path[len(prefix) :]
        return path

    def find_resource(self, path: str) -> tuple[ResourceNode, dict[str, str]] | None:
        """The resource for a stage-less raw path; literal beats `{param}` beats `{proxy+}`."""
        trimmed = path.strip("/")
        segments = trimmed.split("/") if trimmed else []
        return _walk(self.root, segments, 0, {})

    def match(self, http_method: str, path: str) -> Match | None:
        found = self.find_resource(path)
        if found is None:
            return None
        node, params = found
        method = node.methods.get(http_method.upper()) or node.methods.get("ANY")
        if method is None:
            return None
        return Match(method, params)


def _walk(
    node: ResourceNode, segments: Sequence[str], index: int, params: dict[str, str]
) -> tuple[ResourceNode, dict[str, str]] | None:
    if index == len(segments):
        return node, params
    segment = unquote(segments[index])
    if segment in node.literals:
        found = _walk(node.literals[segment], segments, index + 1, params)
        if found:
            return found
    if node.param and segment:
        name, child = node.param
        found = _walk(child, segments, index + 1, {**params, name: segment})
        if found:
            return found
    if node.greedy:
        name, child = node.greedy
        rest = "/".join(unquote(s) for s in segments[index:])
        if rest:
            return child, {**params, name: rest}
    return None


# --------------------------------------------------------------------------------------------
# Building the model from the template


def build_rest_api(resources: StackResources, logical_id: str | None = None) -> RestApi:
    """The REST API of a stack (the given one, or the first), with its routes."""
    stack = resources.stack
    apis = stack.resources_of_type("AWS::ApiGateway::RestApi")
    if not apis:
        raise TemplateError(f"{stack.name}: no AWS::ApiGateway::RestApi")
    if logical_id is None:
        logical_id = next(iter(apis))
        if len(apis) > 1:
            log.warning("%s has %d REST APIs; serving %s", stack.name, len(apis), logical_id)
    elif logical_id not in apis:
        raise TemplateError(f"{stack.name}: no REST API {logical_id!r}")

    def belongs(props: Mapping[str, Any]) -> bool:
        return props.get("RestApiId") == {"Ref": logical_id}

    def typed(rtype: str) -> dict[str, Mapping[str, Any]]:
        return {
            lid: res.get("Properties", {})
            for lid, res in stack.resources_of_type(rtype).items()
            if belongs(res.get("Properties", {}))
        }

    stage_props = list(typed("AWS::ApiGateway::Stage").items())
    stages = [p.get("StageName") for _, p in stage_props]
    stage = str(stages[0]) if stages and stages[0] else "prod"
    throttle = None
    if stage_props:
        lid, props = stage_props[0]
        settings = resources.resolver.resolve(props.get("MethodSettings") or [], f"{stack.name}/{lid}")
        throttle = _stage_throttle(settings, f"{stack.name}/{lid}")
    root = ResourceNode("/", resources.get_att(logical_id, "RootResourceId"))
    nodes = _resource_tree(resources, logical_id, root, typed("AWS::ApiGateway::Resource"))
    authorizers = {
        lid: Authorizer(lid, str(props.get("Type")), _identity_header(props.get("IdentitySource")))
        for lid, props in typed("AWS::ApiGateway::Authorizer").items()
    }
    for lid, props in typed("AWS::ApiGateway::Method").items():
        node = _method_node(resources, logical_id, props.get("ResourceId"), root, nodes, lid)
        method = _method(resources, lid, props, node, authorizers)
        if method is not None:
            node.methods[method.http_method] = method
    responses = {}
    for lid, props in typed("AWS::ApiGateway::GatewayResponse").items():
        where = f"{stack.name}/{lid}.Properties"
        props = resources.resolver.resolve(props, where)
        templates = props.get("ResponseTemplates") or {}
        responses[props["ResponseType"]] = GatewayResponse(
            response_type=props["ResponseType"],
            status=int(props["StatusCode"]) if props.get("StatusCode") else None,
            template=templates.get("application/json"),
            headers={
                key.removeprefix("gatewayresponse.header."): str(value)
                for key, value in (props.get("ResponseParameters") or {}).items()
                if key.startswith("gatewayresponse.header.")
            },
        )
    return RestApi(logical_id, resources.ref(logical_id), stage, root, responses, throttle)


def _stage_throttle(method_settings: Sequence[Mapping[str, Any]], where: str) -> Throttle | None:
    """The stage's default method throttling: the MethodSettings entry for every method (`*` on `/*`).

    One bucket for the whole stage: API Gateway applies these limits to each method of the stage ("per-API,
    per-stage throttling limits are applied at the API method level for a stage", API Gateway developer guide,
    "Throttle requests to your REST APIs"), so a shared bucket is never more lenient than AWS. Entries for
    single methods are not reproduced (the template has none today): they are logged.
    """
    throttle = None
    for setting in method_settings:
        rate, burst = setting.get("ThrottlingRateLimit"), setting.get("ThrottlingBurstLimit")
        if rate is None and burst is None:
            continue
        if (setting.get("HttpMethod"), setting.get("ResourcePath")) != ("*", "/*"):
            log.warning("%s: throttling of %s %s is not reproduced locally", where,
                        setting.get("HttpMethod"), setting.get("ResourcePath"))
        elif rate is None or burst is None:
            log.warning("%s: throttling needs both a rate and a burst limit locally: not throttled", where)
        else:
            throttle = Throttle(rate=float(rate), burst=int(burst))
    return throttle


def _resource_tree(
    resources: StackResources,
    api: str,
    root: ResourceNode,
    props_by_id: Mapping[str, Mapping[str, Any]],
) -> dict[str, ResourceNode]:
    nodes: dict[str, ResourceNode] = {}

    def node_of(lid: str, trail: tuple[str, ...] = ()) -> ResourceNode:
        if lid in nodes:
            return nodes[lid]
        if lid in trail:
            raise TemplateError(f"{resources.stack.name}/{lid}: resource tree has a cycle")
        props = props_by_id[lid]
        parent_ref = props.get("ParentId")
        if parent_ref == {"Fn::GetAtt": [api, "RootResourceId"]}:
            parent = root
        elif isinstance(parent_ref, Mapping) and parent_ref.get("Ref") in props_by_id:
            parent = node_of(parent_ref["Ref"], (*trail, lid))
        else:
            raise TemplateError(f"{resources.stack.name}/{lid}.Properties.ParentId: {parent_ref!r}")
        nodes[lid] = parent.child(str(props["PathPart"]), resources.ref(lid))
        return nodes[lid]

    for lid in props_by_id:
        node_of(lid)
    return nodes


def _method_node(
    resources: StackResources,
    api: str,
    resource_ref: Any,
    root: ResourceNode,
    nodes: Mapping[str, ResourceNode],
    where: str,
) -> ResourceNode:
    if resource_ref == {"Fn::GetAtt": [api, "RootResourceId"]}:
        return root
    if isinstance(resource_ref, Mapping) and resource_ref.get("Ref") in nodes:
        return nodes[resource_ref["Ref"]]
    raise TemplateError(f"{resources.stack.name}/{where}.Properties.ResourceId: {resource_ref!r}")


def _method(
    resources: StackResources,
    lid: str,
    props: Mapping[str, Any],
    node: ResourceNode,
    authorizers: Mapping[str, Authorizer],
) -> Method | None:
    http_method = str(props.get("HttpMethod", "")).upper()
    integration = props.get("Integration") or {}
    kind = integration.get("Type")
    authorization = str(props.get("AuthorizationType", "NONE"))
    authorizer_ref = props.get("AuthorizerId")
    authorizer = None
    if isinstance(authorizer_ref, Mapping):
        authorizer = authorizers.get(str(authorizer_ref.get("Ref")))
    common = {
        "http_method": http_method,
        "resource_path": node.path,
        "resource_id": node.resource_id,
        "authorization_type": authorization,
        "authorizer": authorizer,
    }
    if authorization not in ("NONE", "COGNITO_USER_POOLS"):
        log.warning("%s: authorization %s is not supported locally: denied", lid, authorization)
    if kind == "AWS_PROXY":
        function = _integration_function(resources, integration.get("Uri"))
        if function is None:
            raise TemplateError(
                f"{resources.stack.name}/{lid}.Properties.Integration.Uri: no Lambda function in it"
            )
        return Method(function=function, **common)
    if kind == "MOCK":
        mock = _mock_response(integration)
        if mock is None:
            log.warning(
                "%s: MOCK integration with templates is not supported locally: skipped", lid
            )
            return None
        return Method(mock=mock, **common)
    log.warning("%s: %s integration is not supported locally: skipped", lid, kind)
    return None


def _integration_function(resources: StackResources, uri: Any) -> str | None:
    """The logical id of the function named by `Fn::GetAtt [Fn, Arn]` (or an alias) in a Uri."""
    stack_resources = resources.stack.resources
    if isinstance(uri, Mapping):
        for key, arg in uri.items():
            target = None
            if key == "Fn::GetAtt" and isinstance(arg, list) and arg:
                target = arg[0]
            elif key == "Ref" and isinstance(arg, str):
                target = arg
            if target in stack_resources:
                rtype = stack_resources[target].get("Type")
                if rtype == FUNCTION_TYPE:
                    return str(target)
                if rtype in ("AWS::Lambda::Alias", "AWS::Lambda::Version"):
                    found = _integration_function(
                        resources, stack_resources[target].get("Properties", {}).get("FunctionName")
                    )
                    if found:
                        return found
            found = _integration_function(resources, arg)
            if found:
                return found
    elif isinstance(uri, list):
        for item in uri:
            found = _integration_function(resources, item)
            if found:
                return found
    return None


def _mock_response(integration: Mapping[str, Any]) -> MockResponse | None:
    responses = integration.get("IntegrationResponses") or []
    if not responses or responses[0].get("ResponseTemplates"):
        return None
    first = responses[0]
    headers = {}
    for key, value in (first.get("ResponseParameters") or {}).items():
        if not (key.startswith("method.response.header.") and _is_static(value)):
            return None
        headers[key.removeprefix("method.response.header.")] = str(value)[1:-1]
    return MockResponse(int(first.get("StatusCode", 200)), headers)


def _identity_header(identity_source: Any) -> str | None:
    source = str(identity_source or "method.request.header.Authorization").split(",")[0].strip()
    prefix = "method.request.header."
    return source[len(prefix) :] if source.startswith(prefix) else None


def _is_static(value: Any) -> bool:
    return isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == "'"


# --------------------------------------------------------------------------------------------
# Throttling

THROTTLE_RATE_ENV = "LOCAL_THROTTLE_RATE"
THROTTLE_BURST_ENV = "LOCAL_THROTTLE_BURST"


class TokenBucket:
    """API Gateway's throttling algorithm: "the token bucket algorithm, where a token counts for a request"
    (API Gateway developer guide, "Throttle requests to your REST APIs"). The bucket holds at most `burst`
    tokens, starts full and refills at `rate` tokens a second; a request that finds it empty is throttled."""

    def __init__(self, throttle: Throttle, clock: Callable[[], float] = time.monotonic) -> None:
        self.throttle = throttle
        self._clock = clock
        self._tokens = float(throttle.burst)
        self._last = clock()
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Take a token for one request: False (throttle it) when there is none."""
        with self._lock:
            now = self._clock()
            elapsed = max(0.0, now - self._last)
            if elapsed > 0:
                self._tokens = min(float(self.throttle.burst), self._tokens + elapsed * self.throttle.rate)
            self._last = now
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return True
            return False


def throttle_from_env(template: Throttle | None, environ: Mapping[str, str]) -> Throttle | None:
    """The template's throttling with `LOCAL_THROTTLE_RATE` / `LOCAL_THROTTLE_BURST` (each optional) applied:
    how a test or a benchmark that needs more than the stage allows says so. `inf` lifts a limit."""
    rate = environ.get(THROTTLE_RATE_ENV) or None
    burst = environ.get(THROTTLE_BURST_ENV) or None
    if rate is None and burst is None:
        return template
    new_rate = float(rate) if rate is not None else (template.rate if template else math.inf)
    new_burst = _burst(burst) if burst is not None else (template.burst if template else None)
    if new_burst is None:
        raise ValueError(f"{THROTTLE_RATE_ENV} without {THROTTLE_BURST_ENV}: the template sets no throttling")
    return Throttle(rate=new_rate, burst=new_burst)


def _burst(value: str) -> int:
    number = float(value)
    return 2**62 if math.isinf(number) else int(number)


# --------------------------------------------------------------------------------------------
# Gateway responses


_CONTEXT_VARIABLE = re.compile(
    r"\$!?(?:\{context\.([A-Za-z0-9_.]+)\}|context\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*))"
)


def gateway_response(
    api: RestApi,
    response_type: str,
    context: RequestContext,
    request: HttpRequest | None = None,
    *,
    message: str | None = None,
    status: int | None = None,
) -> HttpResponse:
    """API Gateway's own error response, customised by the template's GatewayResponses.

    Lookup: the exact type, else DEFAULT_4XX/DEFAULT_5XX by status class, else API Gateway's
    default `{"message": "..."}` body.
    """
    default_status, default_message = _DEFAULTS.get(response_type, (500, "Internal server error"))
    status = status or default_status
    message = message if message is not None else default_message
    custom = api.gateway_responses.get(response_type) or api.gateway_responses.get(
        DEFAULT_4XX if status < 500 else DEFAULT_5XX
    )
    variables = {
        "error.message": message,
        "error.messageString": json.dumps(message),
        "error.responseType": response_type,
        "error.validationErrorString": "",
        "requestId": context.request_id,
        "extendedRequestId": context.extended_request_id,
        "stage": api.stage,
        "apiId": api.api_id,
        "accountId": ACCOUNT_ID,
        "requestTime": context.request_time,
        "requestTimeEpoch": str(context.epoch_ms),
        "identity.sourceIp": request.source_ip if request else "",
        "identity.userAgent": (request.header("User-Agent") or "") if request else "",
        "httpMethod": request.method.upper() if request else "",
    }
    template = '{"message":$context.error.messageString}'
    headers: list[tuple[str, str]] = []
    if custom is not None:
        status = custom.status or status
        template = custom.template if custom.template is not None else template
        for name, expression in custom.headers.items():
            value = _mapped_value(expression, request)
            if value is not None:
                headers.append((name, value))
    body = render_template(template, variables).encode("utf-8")
    headers.append(("Content-Type", "application/json"))
    if response_type in _ERROR_TYPES:
        headers.append(("x-amzn-ErrorType", _ERROR_TYPES[response_type]))
    return HttpResponse(status, headers + tracing_headers(context), body)


def render_template(template: str, variables: Mapping[str, str]) -> str:
    """The `$context.*` subset of VTL that gateway-response templates use."""

    def substitute(match: re.Match[str]) -> str:
        return variables.get(match.group(1) or match.group(2), "")

    return _CONTEXT_VARIABLE.sub(substitute, template)


def _mapped_value(expression: str, request: HttpRequest | None) -> str | None:
    """A gateway-response header mapping: a static `'value'` or a request header/param."""
    if _is_static(expression):
        return expression[1:-1]
    if request is None:
        return None
    if expression.startswith("method.request.header."):
        return request.header(expression.removeprefix("method.request.header."))
    if expression.startswith("method.request.querystring."):
        wanted = expression.removeprefix("method.request.querystring.")
        values = [v for k, v in parse_qsl(request.query, keep_blank_values=True) if k == wanted]
        return values[-1] if values else None
    return None
