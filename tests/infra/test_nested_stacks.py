"""One nested stack per domain: every template far from CloudFormation's limits, room for twelve more domains in
the parent, one invoke permission per function, a deployment that follows the routes of every domain."""

from __future__ import annotations

import inspect
import json
from collections import Counter
from typing import Any

import aws_cdk as cdk
import pytest

from functions.contacts.schema import CONTACT_TABLE
from functions.shared import cursors
from functions.shared.routes import Route
from functions.voting.schema import VOTES_TABLE
from infra.constructs.api_domain import CURSOR_SECRET_ENV, ApiDomain, Grant
from infra.domains import connected_car as connected_car_domain
from infra.domains.platform import platform
from infra.stack import DOMAINS, BlueprintsStack, StageConfig
from tests.infra.conftest import Synth, domain_modules, synth
from tests.infra.test_stack import logical_id, normalize, resources

# Half of CloudFormation's quotas (500 resources per stack, 1 MB for a template read from S3): the other half is
# the room the next domains, routes and tables grow into before anyone has to split a template again.
MAX_RESOURCES = 250
MAX_BYTES = 500_000
MORE_DOMAINS = 12
# API Gateway's default quota of resources (path parts) per REST API, shared by every domain. It is adjustable per
# API ("Quotas for configuring and running a REST API"), unlike CloudFormation's 500 resources per stack: the REST
# API keeps room for the domains still planned (order entry, the model explorer) and two more of ConnectedCar's
# size; past that, ask for more or give a group of domains its own RestApi
# (docs/adr/0051-one-rest-api-with-path-budget.md).
MAX_API_RESOURCES = 300
MORE_API_DOMAINS = 4


def figures(synthesized: Synth) -> list[tuple[str, int, int]]:
    """(template, resources, bytes as written by the CDK and uploaded by the CLI) for every template."""
    return [
        (name, len(synthesized.templates[name]["Resources"]), path.stat().st_size)
        for name, path in synthesized.files.items()
    ]


def table(rows: list[tuple[str, int, int]]) -> str:
    return "\n".join(f"  {name:<32} {count:>4} resources {size:>9,} bytes" for name, count, size in rows)


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_every_template_stays_under_half_of_cloudformations_limits(stage, dev, prod):
    synthesized = dev if stage == "dev" else prod
    rows = figures(synthesized)
    print(f"\n{stage}: {MAX_RESOURCES} resources and {MAX_BYTES:,} bytes at most per template\n{table(rows)}")
    over = [row for row in rows if row[1] > MAX_RESOURCES or row[2] > MAX_BYTES]
    assert not over, f"templates over {MAX_RESOURCES} resources or {MAX_BYTES:,} bytes:\n{table(over)}"
    assert len(rows) == 1 + len(DOMAINS)


def test_the_parent_has_room_for_twelve_more_domains_the_size_of_connected_car(dev, tmp_path_factory):
    # Given the same app without ConnectedCar: what the parent spends on that domain is the difference
    without = synth(
        "dev", tmp_path_factory.mktemp("cdk-without-connected-car"),
        domains=[d for d in DOMAINS if d is not connected_car_domain.connected_car], nag=False,
    )
    resources_now, bytes_now = len(dev.parent["Resources"]), dev.parent_file.stat().st_size
    per_domain = resources_now - len(without.parent["Resources"])
    bytes_per_domain = bytes_now - without.parent_file.stat().st_size
    connected_car = dev.nested["ConnectedCar"]
    message = (
        f"parent: {resources_now} resources, {bytes_now:,} bytes; ConnectedCar costs it {per_domain} resource(s) "
        f"and {bytes_per_domain:,} bytes (its own template: {len(connected_car.raw['Resources'])} resources); "
        f"with {MORE_DOMAINS} more such domains: {resources_now + MORE_DOMAINS * per_domain} resources, "
        f"{bytes_now + MORE_DOMAINS * bytes_per_domain:,} bytes"
    )
    print("\n" + message)
    # Then the nested stack resource is all it costs (its tables, functions and routes are in its own template)
    assert per_domain == 1, message
    assert resources_now + MORE_DOMAINS * per_domain < MAX_RESOURCES, message
    assert bytes_now + MORE_DOMAINS * bytes_per_domain < MAX_BYTES, message
    # and the one REST API they share keeps room for their paths too
    api_resources = len(resources(dev.merged, "AWS::ApiGateway::Resource"))
    per_api_domain = len(resources(connected_car.raw, "AWS::ApiGateway::Resource"))
    print(f"API resources (path parts): {api_resources}, ConnectedCar's {per_api_domain}, "
          f"with {MORE_API_DOMAINS} more: {api_resources + MORE_API_DOMAINS * per_api_domain} of {MAX_API_RESOURCES}")
    assert api_resources + MORE_API_DOMAINS * per_api_domain < MAX_API_RESOURCES


def test_the_parent_keeps_what_domains_share_and_each_domain_is_its_own_nested_stack(dev):
    parent = Counter(r["Type"] for r in dev.parent["Resources"].values())
    assert parent["AWS::CloudFormation::Stack"] == len(dev.nested) == len(DOMAINS)
    for kind in ("AWS::ApiGateway::RestApi", "AWS::ApiGateway::Deployment", "AWS::ApiGateway::Stage",
                 "AWS::ApiGateway::Authorizer", "AWS::Cognito::UserPool", "AWS::SecretsManager::Secret"):
        assert parent[kind] == 1, kind
    assert parent["AWS::ApiGateway::GatewayResponse"] == 7
    assert {k.rstrip("0123456789ABCDEF") for k in resources(dev.parent, "AWS::DynamoDB::Table")} == {
        "IdempotencyTable", "ParkedRecordsTable"
    }
    for kind in ("AWS::ApiGateway::Resource", "AWS::ApiGateway::Method", "AWS::Lambda::Function",
                 "AWS::Lambda::Permission", "AWS::IAM::Role"):
        assert parent[kind] == 0, f"{kind} belongs in a domain's nested stack"
    for name, nested in dev.nested.items():
        for resource_id, resource in nested.raw["Resources"].items():
            if resource["Type"] != "AWS::CDK::Metadata":
                path = resource["Metadata"]["aws:cdk:path"]
                assert path.startswith(f"{dev.stack.stack_name}/{name}/{name}/"), (resource_id, path)
                # under the construct named after the domain: the logical id it had when the app was one stack
                assert resource_id.startswith(name), resource_id
    tables = {name: {k.removeprefix(name).rstrip("0123456789ABCDEF") for k in resources(n.raw, "AWS::DynamoDB::Table")}
              for name, n in dev.nested.items()}
    assert tables == {domain.construct_id: domain.table_ids for domain in domain_modules(platform=True)}
    assert tables["ConnectedCar"] == {"DealerTable", "TimeslotTable", "CustomerTable", "VehicleTable",
                                      "RegistrationTable", "AppointmentTable", "EventTable"}  # the seed's seven


def test_each_api_function_has_one_invoke_permission_for_its_api_stage(dev):
    raw = dev.merged
    rest_api = logical_id(raw, "AWS::ApiGateway::RestApi", "ApiRestApi")
    api_functions = {
        k for k, f in resources(raw, "AWS::Lambda::Function").items()
        if f["Properties"]["Handler"].endswith(".api.lambda_handler")
    }
    permissions = resources(raw, "AWS::Lambda::Permission")
    assert len(permissions) == len(api_functions) == len(DOMAINS)
    invoked = set()
    for permission_id, permission in permissions.items():
        props = permission["Properties"]
        (function,) = props["FunctionName"]["Fn::GetAtt"][:1]
        assert dev.template_of(permission_id) == dev.template_of(function)  # beside its function
        invoked.add(function)
        assert props["Action"] == "lambda:InvokeFunction" and props["Principal"] == "apigateway.amazonaws.com"
        assert props["SourceArn"] == {"Fn::Join": ["", [
            "arn:", {"Ref": "AWS::Partition"}, ":execute-api:", {"Ref": "AWS::Region"}, ":",
            {"Ref": "AWS::AccountId"}, ":", {"Ref": rest_api}, "/dev/*/*",
        ]]}
    assert invoked == api_functions
    # and every method calls the function of its own domain, by an integration without a permission of its own
    for method_id, method in resources(raw, "AWS::ApiGateway::Method").items():
        uri = json.dumps(method["Properties"]["Integration"]["Uri"])
        (target,) = [f for f in api_functions if f'"{f}"' in uri]
        assert dev.template_of(method_id) == dev.template_of(target)
        assert method["Properties"]["Integration"]["Type"] == "AWS_PROXY"


def test_the_deployment_waits_for_every_domain(dev):
    (deployment_id,) = resources(dev.parent, "AWS::ApiGateway::Deployment")
    depends_on = set(dev.parent["Resources"][deployment_id]["DependsOn"])
    assert {nested.logical_id for nested in dev.nested.values()} <= depends_on
    (stage,) = resources(dev.parent, "AWS::ApiGateway::Stage").values()
    assert stage["Properties"]["DeploymentId"] == {"Ref": deployment_id}


def _deployment_of(tmp_path_factory, routes: list[Route]) -> str:
    def health(scope, shared) -> ApiDomain:
        return ApiDomain(scope, "Platform", shared=shared, service="platform", package="functions.platform",
                         routes=routes, idempotency=False)

    synthesized = synth("dev", tmp_path_factory.mktemp("cdk-deployment"), domains=[health], nag=False)
    (deployment_id,) = resources(synthesized.parent, "AWS::ApiGateway::Deployment")
    return deployment_id


def test_a_changed_route_in_a_nested_stack_gets_a_new_deployment(tmp_path_factory):
    # A Deployment is a snapshot taken when it is created: unless its logical id changes with the routes, a route
    # added in a nested stack would reach CloudFormation but never the stage.
    docs = Route("GET", "/docs")
    first = _deployment_of(tmp_path_factory, [docs])
    assert _deployment_of(tmp_path_factory, [docs]) == first
    assert _deployment_of(tmp_path_factory, [docs, Route("GET", "/health")]) != first
    assert _deployment_of(tmp_path_factory, [docs, Route("GET", "/health", public=True)]) != first


def test_a_domain_cannot_take_a_path_segment_another_domain_owns():
    def clash(scope, shared) -> ApiDomain:
        return ApiDomain(scope, "Clash", shared=shared, service="clash", package="functions.platform",
                         routes=[Route("GET", "/health/deep")], idempotency=False)

    with pytest.raises(ValueError, match="/health already belongs to Blueprints-dev/Platform/Platform/Routes/health"):
        BlueprintsStack(cdk.App(), "Blueprints-dev", stage=StageConfig.named("dev"), domains=[platform, clash])


def test_a_domain_grants_only_on_its_own_tables():
    def foreign(scope, shared) -> ApiDomain:
        return ApiDomain(scope, "Foreign", shared=shared, service="foreign", package="functions.contacts",
                         tables=[CONTACT_TABLE], routes=[Route("GET", "/foreign")],
                         grants=[Grant(VOTES_TABLE, ("GetItem",))])

    with pytest.raises(ValueError, match="VotesTable is not a table of Foreign"):
        BlueprintsStack(cdk.App(), "Blueprints-dev", stage=StageConfig.named("dev"), domains=[foreign])


def _takes_a_cursor(route: Any) -> bool:
    return "cursor" in inspect.signature(route.func).parameters


@pytest.mark.parametrize("domain", domain_modules(), ids=lambda d: d.name)
def test_paged_routes_are_those_that_take_a_cursor_and_only_they_bring_the_secret(domain, dev):
    served = domain.app._static_routes + domain.app._dynamic_routes
    api_function = f"{domain.construct_id}ApiFunction"
    with_cursor = {(r.method, normalize(r.path)) for r in served if _takes_a_cursor(r)}
    assert {(r.method, normalize(r.path)) for r in domain.infra.DOMAIN.routes if r.paged} == with_cursor
    raw = dev.merged
    function = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", api_function)]
    variables = function["Properties"]["Environment"]["Variables"]
    assert CURSOR_SECRET_ENV == cursors.CURSOR_SECRET_ENV  # infra spells it without importing Powertools
    assert (CURSOR_SECRET_ENV in variables) == bool(with_cursor)
    policy = raw["Resources"][logical_id(raw, "AWS::IAM::Policy", api_function.replace("Function", "Role"))]
    actions = {a for s in policy["Properties"]["PolicyDocument"]["Statement"] for a in
               (s["Action"] if isinstance(s["Action"], list) else [s["Action"]])}
    assert ("secretsmanager:GetSecretValue" in actions) == bool(with_cursor)
