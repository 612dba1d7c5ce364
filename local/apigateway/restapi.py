"""API Gateway REST API from the template: routes, authorizer, gateway responses, stage and method throttling,
payload compression, CORS preflights. Built from the `AWS::ApiGateway::*` resources of the stack holding the RestApi
and of every nested stack: CDK's nested stacks attach their methods to the parent's API through parameters, so
`RestApiId`, `ParentId`, `ResourceId` and `AuthorizerId` are compared by their resolved physical ids. Anything but
AWS_PROXY integrations, the MOCK integrations of CDK's CORS preflights (`MockResponse`) and Cognito (or no)
authorization fails the start with `TemplateError`.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from werkzeug import Response

from local.awslambda.events import ACCOUNT_ID, RequestContext
from local.cloudformation.resources import FUNCTION_TYPE, StackResources
from local.cloudformation.template import TemplateError

MAX_BODY_BYTES = 10 * 1024 * 1024
MISSING_AUTHENTICATION_TOKEN, UNAUTHORIZED, REQUEST_TOO_LARGE, THROTTLED = (
    "MISSING_AUTHENTICATION_TOKEN", "UNAUTHORIZED", "REQUEST_TOO_LARGE", "THROTTLED")
DEFAULT_4XX, DEFAULT_5XX = "DEFAULT_4XX", "DEFAULT_5XX"
# API Gateway's default status, message and x-amzn-ErrorType of the gateway responses the local gateway produces.
_DEFAULTS: Mapping[str, tuple[int, str, str]] = {
    MISSING_AUTHENTICATION_TOKEN: (403, "Missing Authentication Token", "MissingAuthenticationTokenException"),
    UNAUTHORIZED: (401, "Unauthorized", "UnauthorizedException"),
    REQUEST_TOO_LARGE: (413, "Request Too Large", "RequestTooLargeException"),
    THROTTLED: (429, "Too Many Requests", "TooManyRequestsException"),
    DEFAULT_4XX: (400, "Bad Request", "BadRequestException"),
    DEFAULT_5XX: (502, "Internal server error", "InternalServerErrorException"),
}
# "Length, in characters, of the URL for a regional API: 10240" ("Quotas for configuring and running a REST API in
# API Gateway"); our API is regional (infra/constructs/rest_api.py).
MAX_URL_CHARS = 10240
THROTTLE_RATE_ENV, THROTTLE_BURST_ENV = "LOCAL_THROTTLE_RATE", "LOCAL_THROTTLE_BURST"


_VTL_ORIGIN = re.compile(r'#set\(\$(\w+) = \$input\.params\(\)\.header\.get\("([\w-]+)"\)\)$')
_VTL_IF = re.compile(r'#if\((.+)\)$')
_VTL_EQUALS = re.compile(r'\$(\w+) == "([^"]*)"$')
_VTL_OVERRIDE = re.compile(r'#set\(\$context\.responseOverride\.header\.([\w-]+) = \$(\w+)\)$')


@dataclass(frozen=True)
class MockResponse:
    """A MOCK integration's answer, as CDK's CORS preflight (`addCorsPreflight`) builds it: the integration response's
    status and static headers (`'value'`), and a response template of the only Velocity statements CDK writes there:
    `#set($v = $input.params().header.get("Name"))`, `#if($v == "a" || $v == "b")` … `#end`, and
    `#set($context.responseOverride.header.Name = $v)` ("Override your API's request and response parameters and
    status codes"). Any other template fails the start."""
    status: int
    headers: Mapping[str, str]
    template: tuple[str, ...] = ()

    @classmethod
    def of(cls, integration: Mapping[str, Any], where: str) -> MockResponse:
        responses = [r for r in integration.get("IntegrationResponses") or [] if not r.get("SelectionPattern")]
        if len(responses) != 1:
            raise TemplateError(f"{where}: a MOCK integration needs one default integration response locally")
        (response,) = responses
        params = response.get("ResponseParameters") or {}
        if not all(k.startswith("method.response.header.") and _is_static(v) for k, v in params.items()):
            raise TemplateError(f"{where}: only static MOCK response headers ('value') are supported locally")
        templates = response.get("ResponseTemplates") or {}
        lines = tuple(line.strip() for line in str(templates.get("application/json") or "").splitlines()
                      if line.strip())
        mock = cls(int(response.get("StatusCode") or 200),
                   {k.removeprefix("method.response.header."): v[1:-1] for k, v in params.items()}, lines)
        mock.answer({})  # a template it cannot run fails now, not on the first preflight
        return mock

    def answer(self, request_headers: Mapping[str, str]) -> tuple[int, dict[str, str]]:
        """(status, headers) for a request with these headers (names as sent: `header.get` is case-sensitive)."""
        variables: dict[str, str | None] = {}
        headers, skipping = dict(self.headers), [False]
        for line in self.template:
            if line == "#end":
                if len(skipping) == 1:
                    raise TemplateError(f"MOCK response template: #end without #if: {self.template}")
                skipping.pop()
                continue
            if (condition := _VTL_IF.match(line)) is not None:
                skipping.append(skipping[-1] or not self._holds(condition.group(1), variables))
                continue
            if (origin := _VTL_ORIGIN.match(line)) is not None:
                value = request_headers.get(origin.group(2))
                if not skipping[-1] and value is not None:  # Velocity: setting null leaves the variable as it was
                    variables[origin.group(1)] = value
                continue
            if (override := _VTL_OVERRIDE.match(line)) is not None:
                if not skipping[-1] and variables.get(override.group(2)) is not None:
                    headers[override.group(1)] = str(variables[override.group(2)])
                continue
            raise TemplateError(f"MOCK response template: {line!r} is not reproduced locally")
        if len(skipping) != 1:
            raise TemplateError(f"MOCK response template: #if without #end: {self.template}")
        return self.status, headers

    def _holds(self, condition: str, variables: Mapping[str, str | None]) -> bool:
        results = []
        for term in condition.split("||"):
            equals = _VTL_EQUALS.match(term.strip())
            if equals is None:
                raise TemplateError(f"MOCK response template: condition {condition!r} is not reproduced locally")
            results.append(variables.get(equals.group(1)) == equals.group(2))
        return any(results)


@dataclass(frozen=True)
class Method:
    http_method: str
    resource_path: str
    resource_id: str
    authorization_type: str = "NONE"
    token_header: str = "Authorization"  # noqa: S105  a header's name: where the authorizer reads the token
    function: str = ""  # "<Stack>/<LogicalId>" of the Lambda function of the AWS_PROXY integration
    mock: MockResponse | None = None  # a MOCK integration's answer instead of a function

    @property
    def function_label(self) -> str:
        return self.function.rsplit("/", 1)[-1] if self.mock is None else "(MOCK)"


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
    api_id: str
    stage: str
    resources: dict[str, dict[str, Method]]  # every resource's path ("/a/{b}") -> its methods, by HTTP method
    gateway_responses: dict[str, Mapping[str, Any]] = field(default_factory=dict)  # resolved properties, by type
    throttle: Throttle | None = None  # the stage's default method throttling (None: the template sets none)
    # A method's own throttling (MethodSettings for its resource path and HTTP method), by (METHOD, "/resource/path")
    method_throttles: dict[tuple[str, str], Throttle] = field(default_factory=dict)
    # The RestApi's MinimumCompressionSize: gzip an answer of at least this many bytes (None: compression is off)
    minimum_compression_size: int | None = None

    def routes(self) -> list[Method]:
        return sorted((m for methods in self.resources.values() for m in methods.values()),
                      key=lambda m: (m.resource_path, m.http_method))

    def strip_stage(self, path: str) -> str:
        """Requests may carry the `/<stage>` prefix of the deployed URL, or not."""
        prefix = f"/{self.stage}"
        return "/" if path == prefix else path[len(prefix):] if path.startswith(prefix + "/") else path

    def match(self, http_method: str, path: str) -> Match | None:
        """The method for a stage-less raw path. API Gateway walks the resource tree preferring a literal part to a
        `{param}`, backing out of dead ends: the first resource in that order whose parts all match the path's."""
        segments = [unquote(s) for s in path.strip("/").split("/")] if path.strip("/") else []
        for resource in sorted(self.resources, key=lambda r: [p.startswith("{") for p in r.split("/") if p]):
            parts = [p for p in resource.split("/") if p]
            if len(parts) == len(segments) and all(p == s or (p[0] == "{" and s)
                                                   for p, s in zip(parts, segments, strict=True)):
                methods = self.resources[resource]
                method = methods.get(http_method.upper()) or methods.get("ANY")
                params = {p[1:-1]: s for p, s in zip(parts, segments, strict=True) if p.startswith("{")}
                return Match(method, params) if method else None
        return None


_Part = tuple[StackResources, str, Callable[[str], Any]]  # a stack, a resource's logical id, its property resolver


def build_rest_api(stacks: StackResources | Sequence[StackResources]) -> RestApi:
    """The app's REST API (the first found) with the routes of every stack and nested stack."""
    tops = [stacks] if isinstance(stacks, StackResources) else list(stacks)
    every = [s for top in tops for s in top.walk()]
    owners = [(s, lid) for s in every for lid in s.stack.resources_of_type("AWS::ApiGateway::RestApi")]
    if not owners:
        raise TemplateError("no AWS::ApiGateway::RestApi in the app")
    owner, api = owners[0]
    api_id, root_id = owner.ref(api), owner.get_att(api, "RootResourceId")
    parts = _api_parts(every, api_id)
    tree = {s.ref(lid): (prop("ParentId"), str(prop("PathPart"))) for s, lid, prop in parts.get("Resource", [])}
    path_of = _resource_paths(root_id, tree, api)
    resources: dict[str, dict[str, Method]] = {path_of(resource_id): {} for resource_id in [root_id, *tree]}
    functions = {s.get_att(lid, "Arn"): f"{s.stack.name}/{lid}" for s in every
                 for lid in s.stack.resources_of_type(FUNCTION_TYPE)}
    authorizers = _authorizers(parts.get("Authorizer", []))
    for method in _methods(parts.get("Method", []), path_of, functions, authorizers):
        resources[method.resource_path][method.http_method] = method
    stages = parts.get("Stage", [])
    stage = str(stages[0][2]("StageName")) if stages else "prod"
    throttle, method_throttles = _stage_throttles(stages[0][2]("MethodSettings") or [], stages[0][1]) if stages else (
        None, {})
    unknown = [key for key in method_throttles if key[1] not in resources or (
        key[0] not in resources[key[1]] and "ANY" not in resources[key[1]])]
    if unknown:
        raise TemplateError(f"MethodSettings throttle methods the API does not have: {unknown}")
    size = owner.resolver.resolve((owner.stack.resources[api].get("Properties") or {}).get("MinimumCompressionSize"),
                                  f"{owner.stack.name}/{api}.Properties.MinimumCompressionSize")
    return RestApi(api_id, stage, resources, _gateway_responses(parts.get("GatewayResponse", [])), throttle,
                   method_throttles, None if size is None else int(size))


def _api_parts(every: Sequence[StackResources], api_id: Any) -> dict[str, list[_Part]]:
    """The API's resources, methods, authorizers, gateway responses and stage, by type (`Method`, ...)."""
    parts: dict[str, list[_Part]] = {}
    for s in every:
        for lid, resource in s.stack.resources.items():
            props, rtype = resource.get("Properties") or {}, str(resource.get("Type"))
            if rtype.startswith("AWS::ApiGateway::") and "RestApiId" in props:
                def prop(key: str, s: StackResources = s, lid: str = lid, props: Mapping = props) -> Any:
                    return s.resolver.resolve(props.get(key), f"{s.stack.name}/{lid}.Properties.{key}")
                if prop("RestApiId") == api_id:
                    parts.setdefault(rtype.removeprefix("AWS::ApiGateway::"), []).append((s, lid, prop))
    return parts


def _resource_paths(root_id: Any, tree: Mapping[Any, tuple[Any, str]], api: str) -> Callable[[Any], str]:
    """A resource id's path ("/voting/polls/{pollId}"), from its parents up to the root."""
    paths = {root_id: "/"}

    def path_of(resource_id: Any, trail: tuple[Any, ...] = ()) -> str:
        if resource_id not in paths:
            if resource_id not in tree or resource_id in trail:
                raise TemplateError(f"API resource {resource_id!r} is not in the tree of {api}")
            parent, part = tree[resource_id]
            if part.startswith("{") and part.endswith("+}"):
                raise TemplateError(f"{part}: greedy path parameters are not supported locally")
            paths[resource_id] = f"{path_of(parent, (*trail, resource_id)).rstrip('/')}/{part}"
        return paths[resource_id]

    return path_of


def _authorizers(found: Sequence[_Part]) -> dict[Any, str]:
    """The header each authorizer reads the token from (methods' authorization types are checked in `_methods`)."""
    authorizers = {}
    for s, lid, prop in found:
        source = str(prop("IdentitySource") or "method.request.header.Authorization")
        if not source.startswith("method.request.header.") or "," in source:
            raise TemplateError(f"{s.stack.name}/{lid}: identity source {source!r}: only one header is supported")
        authorizers[s.ref(lid)] = source.removeprefix("method.request.header.")
    return authorizers


def _methods(found: Sequence[_Part], path_of: Callable[[Any], str], functions: Mapping[Any, str],
             authorizers: Mapping[Any, str]) -> Iterator[Method]:
    """Every method: a MOCK integration's answer, or the app's function an AWS_PROXY integration invokes."""
    for s, lid, prop in found:
        where = f"{s.stack.name}/{lid}"
        resource_id, integration = prop("ResourceId"), prop("Integration") or {}
        authorization = str(prop("AuthorizationType") or "NONE")
        if authorization not in ("NONE", "COGNITO_USER_POOLS"):
            raise TemplateError(f"{where}: authorization {authorization} is not supported locally")
        if integration.get("Type") == "MOCK":
            yield Method(str(prop("HttpMethod")).upper(), path_of(resource_id), resource_id, authorization,
                         mock=MockResponse.of(integration, where))
            continue
        arn = re.search(r"/functions/(arn:[^/]+)/invocations", str(integration.get("Uri", "")))
        if integration.get("Type") != "AWS_PROXY" or arn is None or arn.group(1) not in functions:
            raise TemplateError(f"{where}: only AWS_PROXY integrations with a function of the app are served locally")
        yield Method(str(prop("HttpMethod")).upper(), path_of(resource_id), resource_id, authorization,
                     authorizers.get(prop("AuthorizerId"), "Authorization"), functions[arn.group(1)])


def _gateway_responses(found: Sequence[_Part]) -> dict[str, Mapping[str, Any]]:
    """The gateway responses by type; their headers static ('value') or a request's header."""
    keys = ("StatusCode", "ResponseTemplates", "ResponseParameters")
    responses: dict[str, Mapping[str, Any]] = {str(prop("ResponseType")): {key: prop(key) for key in keys}
                                               for _, _, prop in found}
    if not all(_is_static(v) or _REQUEST_HEADER.match(str(v))
               for r in responses.values() for v in (r["ResponseParameters"] or {}).values()):
        raise TemplateError("only static gateway response headers ('value') or request headers "
                            "(method.request.header.Name) are supported locally")
    return responses


_REQUEST_HEADER = re.compile(r"method\.request\.header\.([\w-]+)$")


def _stage_throttles(method_settings: Sequence[Mapping[str, Any]], where: str
                     ) -> tuple[Throttle | None, dict[tuple[str, str], Throttle]]:
    """The stage's default method throttling (MethodSettings `*` on `/*`), as one bucket for the stage: never more
    lenient than AWS, which applies it to each method ("per-API, per-stage throttling limits are applied at the API
    method level for a stage", "Throttle requests to your REST APIs"); and each method's own (an HTTP method on a
    resource path, `/` escaped as `~1`), which replaces the stage's for that method. Wildcards elsewhere, or a rate
    without a burst, fail the start."""
    throttle, methods = None, {}
    for setting in method_settings:
        rate, burst = setting.get("ThrottlingRateLimit"), setting.get("ThrottlingBurstLimit")
        if rate is None and burst is None:
            continue
        key = (str(setting.get("HttpMethod")), str(setting.get("ResourcePath")))
        if rate is None or burst is None or (key != ("*", "/*") and ("*" in key[0] or "*" in key[1])):
            raise TemplateError(f"{where}.MethodSettings: only the stage's default throttling (*, /*) and a method's "
                                f"own (both a rate and a burst limit) are reproduced locally, got {dict(setting)}")
        if key == ("*", "/*"):
            throttle = Throttle(rate=float(rate), burst=int(burst))
        else:
            path = "/" if key[1] == "/" else key[1][1:].replace("~1", "/")  # the root is "/" alone
            methods[(key[0].upper(), path)] = Throttle(rate=float(rate), burst=int(burst))
    return throttle, methods


def _is_static(value: Any) -> bool:
    return isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == "'"


class TokenBucket:
    """API Gateway's "token bucket algorithm, where a token counts for a request" ("Throttle requests to your REST
    APIs"): at most `burst` tokens, full at first, refilled at `rate` a second; a request finding none is throttled."""

    def __init__(self, throttle: Throttle, clock: Callable[[], float] = time.monotonic) -> None:
        self.throttle, self._clock = throttle, clock
        self._tokens, self._last = float(throttle.burst), clock()
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Take a token for one request: False (throttle it) when there is none."""
        with self._lock:
            now = self._clock()
            refill = max(0.0, now - self._last) * self.throttle.rate
            self._tokens = min(float(self.throttle.burst), self._tokens + refill)
            self._last = now
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return True
            return False


def throttle_from_env(template: Throttle | None, environ: Mapping[str, str]) -> Throttle | None:
    """The template's throttling with `LOCAL_THROTTLE_RATE` / `LOCAL_THROTTLE_BURST` (each optional) applied: how a
    test or a benchmark that needs more than the stage allows says so. `inf` lifts a limit."""
    rate, burst = environ.get(THROTTLE_RATE_ENV) or None, environ.get(THROTTLE_BURST_ENV) or None
    if rate is None and burst is None:
        return template
    new_burst = (2**62 if math.isinf(float(burst)) else int(float(burst))) if burst is not None else (
        template.burst if template else None)
    if new_burst is None:
        raise ValueError(f"{THROTTLE_RATE_ENV} without {THROTTLE_BURST_ENV}: the template sets no throttling")
    new_rate = float(rate) if rate is not None else (template.rate if template else math.inf)
    return Throttle(rate=new_rate, burst=new_burst)


_CONTEXT_VARIABLE = re.compile(r"\$!?(?:\{context\.([A-Za-z0-9_.]+)\}|context\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*))")


def gateway_response(api: RestApi, response_type: str, context: RequestContext, *, source_ip: str = "",
                     http_method: str = "", status: int | None = None, message: str | None = None,
                     request_headers: Mapping[str, str] | None = None, path: str = "") -> Response:
    """API Gateway's own response, shaped by the template's GatewayResponses: the exact type, else DEFAULT_4XX or
    DEFAULT_5XX by status class, else API Gateway's default `{"message": "..."}`. A header mapped from a request
    header (`method.request.header.Origin`) is left out when the request has none. `path` is the request's path
    without the stage; `$context.path` holds it with the stage, as API Gateway's does (and the proxy event's
    requestContext.path, local/awslambda/events.py)."""
    status_, message_, error_type = _DEFAULTS.get(response_type, (500, "Internal server error", ""))
    status, message = status or status_, message or message_
    custom = api.gateway_responses.get(response_type) or api.gateway_responses.get(
        DEFAULT_4XX if status < 500 else DEFAULT_5XX)
    variables = {
        "error.message": message, "error.messageString": json.dumps(message), "error.responseType": response_type,
        "requestId": context.request_id, "extendedRequestId": context.extended_request_id, "stage": api.stage,
        "apiId": api.api_id, "accountId": ACCOUNT_ID, "requestTime": context.request_time,
        "requestTimeEpoch": str(context.epoch_ms), "identity.sourceIp": source_ip, "httpMethod": http_method,
        "path": f"/{api.stage}{path}" if path not in ("", "/") else f"/{api.stage}/",
    }
    template, headers = '{"message":$context.error.messageString}', {}
    if custom is not None:
        status = int(custom["StatusCode"] or status)
        template = (custom["ResponseTemplates"] or {}).get("application/json", template)
        for key, value in (custom["ResponseParameters"] or {}).items():
            name, from_request = key.removeprefix("gatewayresponse.header."), _REQUEST_HEADER.match(str(value))
            if from_request is None:
                headers[name] = str(value)[1:-1]
            elif (sent := _header(request_headers or {}, from_request.group(1))) is not None:
                headers[name] = sent
    body = _CONTEXT_VARIABLE.sub(lambda m: variables.get(m.group(1) or m.group(2), ""), template)
    headers["Content-Type"] = "application/json"
    if error_type:
        headers["x-amzn-ErrorType"] = error_type
    return Response(body, status, {**headers, **tracing_headers(context)})


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """A request header by name, as API Gateway's method request parameters find it: in any case."""
    return next((value for key, value in headers.items() if key.lower() == name.lower()), None)


def tracing_headers(context: RequestContext) -> dict[str, str]:
    return {"x-amzn-RequestId": context.request_id, "x-amz-apigw-id": context.extended_request_id}
