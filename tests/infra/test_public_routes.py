"""The public routes and what a browser needs: payload compression, the public routes' own throttle, the explorer
switch (`-c explorer=…`, off on prod) and CORS from `-c corsOrigins=…` (preflights, the functions' environment, the
gateway responses' headers). The switches are synthesized with the platform domain and one other (a route with the
authorizer): they change nothing else."""

from __future__ import annotations

from typing import Any

import pytest

from functions.shared import cors
from infra.constructs.rest_api import MIN_COMPRESSION_BYTES, PUBLIC_BURST_LIMIT, PUBLIC_RATE_LIMIT
from infra.domains import platform as platform_domain
from infra.domains.users import users as users_domain
from tests.infra.conftest import Synth, synth
from tests.infra.test_stack import resources, template_routes

ORIGINS = ("https://a.example", "https://b.example")


def with_platform(tmp_path_factory, stage: str, **context: Any) -> Synth:
    return synth(stage, tmp_path_factory.mktemp(f"cdk-{stage}"), domains=(users_domain, platform_domain.platform),
                 context=context)


def stage_settings(raw: dict[str, Any]) -> list[dict[str, Any]]:
    (stage,) = resources(raw, "AWS::ApiGateway::Stage").values()
    return stage["Properties"]["MethodSettings"]


def platform_environment(raw: dict[str, Any]) -> dict[str, str]:
    (function,) = [f for lid, f in resources(raw, "AWS::Lambda::Function").items() if lid.startswith("PlatformApi")]
    return function["Properties"]["Environment"]["Variables"]


def test_api_gateway_compresses_answers_of_a_kibibyte_or_more(dev, prod):
    for synthesized in (dev, prod):
        (api,) = resources(synthesized.merged, "AWS::ApiGateway::RestApi").values()
        assert api["Properties"]["MinimumCompressionSize"] == MIN_COMPRESSION_BYTES == 1024


def test_every_public_route_has_its_own_throttle_and_no_other_route_does(dev, prod):
    for synthesized, stage_rate in ((dev, 50), (prod, 500)):
        settings = stage_settings(synthesized.merged)
        public = {(m, p) for (m, p), props in template_routes(synthesized.merged).items()
                  if props["AuthorizationType"] == "NONE"}
        own = {(s["HttpMethod"], "/" if s["ResourcePath"] == "/" else s["ResourcePath"][1:].replace("~1", "/")): s
               for s in settings if s["ResourcePath"] != "/*"}  # the root's setting is "/" alone
        assert set(own) == public and len(public) >= 4  # GET /, health, docs and its script; the explorer in dev
        assert all((s["ThrottlingRateLimit"], s["ThrottlingBurstLimit"]) == (PUBLIC_RATE_LIMIT, PUBLIC_BURST_LIMIT)
                   and s["LoggingLevel"] == "ERROR" for s in own.values())
        (default,) = [s for s in settings if s["ResourcePath"] == "/*"]
        assert default["ThrottlingRateLimit"] == stage_rate > PUBLIC_RATE_LIMIT


WHAT_IF = ("GET", "/explorer/scale/{model}")  # the explorer's what-if: with the explorer, public


def test_the_explorer_is_on_dev_and_not_created_on_prod(dev, prod):
    dev_routes = template_routes(dev.merged)
    assert ("GET", "/explorer") in dev_routes and dev_routes[WHAT_IF]["AuthorizationType"] == "NONE"
    prod_routes = template_routes(prod.merged)
    assert ("GET", "/explorer") not in prod_routes and ("GET", "/docs") in prod_routes
    assert WHAT_IF not in prod_routes
    assert not any(s["ResourcePath"].startswith("/~1explorer") for s in stage_settings(prod.merged))


@pytest.mark.parametrize(("stage", "switch", "expected"), [("prod", "true", True), ("dev", "false", False)])
def test_the_explorer_switch_overrides_the_stages_default(tmp_path_factory, stage, switch, expected):
    synthesized = with_platform(tmp_path_factory, stage, explorer=switch)
    assert (("GET", "/explorer") in template_routes(synthesized.merged)) is expected
    assert (WHAT_IF in template_routes(synthesized.merged)) is expected


def test_without_cors_origins_there_is_no_preflight_and_no_cors_header(dev, prod):
    for synthesized in (dev, prod):
        raw = synthesized.merged
        assert not any(method == "OPTIONS" for method, _ in template_routes(raw))
        assert cors.CORS_ORIGINS_ENV not in platform_environment(raw)
        for response in resources(raw, "AWS::ApiGateway::GatewayResponse").values():
            assert not any("Access-Control" in k for k in response["Properties"].get("ResponseParameters", {}))


@pytest.fixture(scope="module")
def with_cors(tmp_path_factory) -> Synth:
    return with_platform(tmp_path_factory, "prod", corsOrigins=",".join(ORIGINS))


def test_cors_origins_give_every_resource_a_mock_preflight_for_the_allowed_origins(with_cors):
    routes = template_routes(with_cors.merged)
    paths = {path for _, path in routes}
    assert paths and {path for method, path in routes if method == "OPTIONS"} == paths | {"/"}  # the root too
    for (method, _), props in routes.items():
        if method != "OPTIONS":
            continue
        assert props["AuthorizationType"] == "NONE" and props["Integration"]["Type"] == "MOCK"
        (answer,) = props["Integration"]["IntegrationResponses"]
        headers = answer["ResponseParameters"]
        assert headers["method.response.header.Access-Control-Allow-Origin"] == f"'{ORIGINS[0]}'"
        assert headers["method.response.header.Access-Control-Allow-Headers"] == f"'{','.join(cors.ALLOW_HEADERS)}'"
        assert headers["method.response.header.Access-Control-Max-Age"] == f"'{cors.MAX_AGE_SECONDS}'"
        # the second origin is chosen by the response template, which the local runtime runs (local/apigateway/restapi.py)
        assert f'$origin == "{ORIGINS[1]}"' in answer["ResponseTemplates"]["application/json"]


def test_cors_origins_reach_the_functions_and_the_gateway_responses(with_cors):
    raw = with_cors.merged
    assert platform_environment(raw)[cors.CORS_ORIGINS_ENV] == ",".join(ORIGINS)
    refusals = resources(raw, "AWS::ApiGateway::GatewayResponse").values()
    assert len(refusals) >= 6
    for response in refusals:
        headers = response["Properties"]["ResponseParameters"]
        assert headers["gatewayresponse.header.Access-Control-Allow-Origin"] == "method.request.header.Origin"
        assert headers["gatewayresponse.header.Vary"] == "'Origin'"


def test_one_cors_origin_is_written_as_it_is_in_the_gateway_responses(tmp_path_factory):
    raw = with_platform(tmp_path_factory, "dev", corsOrigins=ORIGINS[0]).merged
    for response in resources(raw, "AWS::ApiGateway::GatewayResponse").values():
        assert response["Properties"]["ResponseParameters"][
            "gatewayresponse.header.Access-Control-Allow-Origin"] == f"'{ORIGINS[0]}'"


@pytest.mark.parametrize("value", ["*", "https://a.example/", "a.example", "ftp://a.example"])
def test_a_cors_context_that_is_no_list_of_origins_fails_the_synth(tmp_path_factory, value):
    with pytest.raises(ValueError, match="is not an origin"):
        with_platform(tmp_path_factory, "dev", corsOrigins=value)
