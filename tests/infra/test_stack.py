"""Exact template assertions: tables, routes and their auth, grants, functions, API stage, cdk-nag, cfn-lint."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from aws_cdk.assertions import Match

from functions.contacts.schema import CONTACT_TABLE
from functions.platform.api import every_domain
from functions.shared.domain import load as load_domain
from functions.shared.domain import names as domain_names
from functions.shared.schema import EXPLAIN_ENV
from infra.domains import platform as platform_domain
from tests.infra.conftest import domain_modules

# The routes anyone may call, none of them in the OpenAPI description: GET /health, /docs and /explorer.
PUBLIC = {(route.method, route.path) for route in platform_domain.routes(explorer=True) if route.public}

platform_app = every_domain()  # every domain's routes, as /docs describes them

SNAPSHOTS = Path(__file__).parent / "snapshots"


def resources(raw: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in raw["Resources"].items() if v["Type"] == kind}


def logical_id(raw: dict[str, Any], kind: str, prefix: str) -> str:
    (match,) = [k for k in resources(raw, kind) if k.startswith(prefix)]
    return match


# --- the Contact table ----------------------------------------------------------------------------------

def test_contact_table_keeps_the_seed_keys_and_adds_sparse_indexes(dev):
    template, raw = dev.template, dev.merged
    template.has_resource_properties("AWS::DynamoDB::Table", {
        "KeySchema": [{"AttributeName": "Id", "KeyType": "HASH"}, {"AttributeName": "Type", "KeyType": "RANGE"}],
        "BillingMode": "PAY_PER_REQUEST",
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
        "GlobalSecondaryIndexes": [
            {"IndexName": "ContactTypeShardIndex", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": "TypeShard", "KeyType": "HASH"},
                           {"AttributeName": "Id", "KeyType": "RANGE"}]},
            {"IndexName": "ContactLastNameIndex", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": "LastName", "KeyType": "HASH"},
                           {"AttributeName": "FirstName", "KeyType": "RANGE"}]},
            {"IndexName": "ContactPersonIndex", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": "PersonId", "KeyType": "HASH"},
                           {"AttributeName": "RelationshipStart", "KeyType": "RANGE"}]},
        ],
    })
    table = raw["Resources"][logical_id(raw, "AWS::DynamoDB::Table", "ContactsContactTable")]
    assert "TableName" not in table["Properties"]
    assert table["DeletionPolicy"] == "Delete"


def test_an_upgrades_first_deploy_keeps_the_retired_contact_type_index():
    # CloudFormation creates or deletes one GSI per update: the first deploy of a stage that has ContactTypeIndex adds
    # the sharded index beside it (`-c keepRetiredIndexes=true`); the next one deletes it (ADR 0110).
    import aws_cdk as cdk

    from functions.contacts.schema import CONTACT_TABLE_DURING_UPGRADE, TABLES
    from infra.domains.connected_car import KEEP_RETIRED_INDEXES
    from infra.domains.contacts import tables

    assert tables(cdk.Stack(cdk.App())) == TABLES
    assert tables(cdk.Stack(cdk.App(context={KEEP_RETIRED_INDEXES: "true"}))) == (CONTACT_TABLE_DURING_UPGRADE,)
    assert [index.name for index in CONTACT_TABLE_DURING_UPGRADE.indexes] == [
        "ContactTypeShardIndex", "ContactLastNameIndex", "ContactPersonIndex", "ContactTypeIndex"]


def test_idempotency_table_expires_records_by_ttl(dev):
    template, raw = dev.template, dev.merged
    template.has_resource_properties("AWS::DynamoDB::Table", {
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "TimeToLiveSpecification": {"AttributeName": "expiration", "Enabled": True},
        "BillingMode": "PAY_PER_REQUEST",
    })
    template.has_resource_properties("AWS::Lambda::Function", {
        "Handler": "functions.contacts.api.lambda_handler",
        "Environment": {"Variables": Match.object_like({
            "IDEMPOTENCY_TABLE_NAME": {"Ref": logical_id(raw, "AWS::DynamoDB::Table", "IdempotencyTable")},
        })},
    })


def test_only_the_dev_stage_lets_api_functions_explain_items_and_every_one_of_them_may(dev, prod):
    """BLUEPRINTS_EXPLAIN (functions/shared/schema.py): the model explorer's items, never on prod."""
    def environments(raw):
        return {logical_id: (props["Handler"], props.get("Environment", {}).get("Variables", {}))
                for logical_id, resource in resources(raw, "AWS::Lambda::Function").items()
                if "Handler" in (props := resource["Properties"])}

    dev_functions, prod_functions = environments(dev.merged), environments(prod.merged)
    api = {logical_id for logical_id, (handler, _) in dev_functions.items() if handler.endswith(".api.lambda_handler")}
    assert len(api) >= 14
    assert {logical_id for logical_id, (_, env) in dev_functions.items() if env.get(EXPLAIN_ENV) == "items"} == api
    assert [logical_id for logical_id, (_, env) in prod_functions.items() if EXPLAIN_ENV in env] == []


def test_prod_retains_and_protects_data_tables(prod):
    raw = prod.merged
    data_tables = {k: v for k, v in resources(raw, "AWS::DynamoDB::Table").items()
                   if not k.startswith("IdempotencyTable")}  # 24 h scratch records: nothing to retain
    # every domain's tables, not only contacts' (their logical ids start with the domain and the table's construct id)
    for prefix in {f"{domain.construct_id}{table_id}" for domain in domain_modules() for table_id in domain.table_ids}:
        assert any(name.startswith(prefix) for name in data_tables), prefix
    for table in data_tables.values():
        # a failed first create deletes them (RetainExceptOnCreate); a replacement keeps the old one
        assert table["DeletionPolicy"] == "RetainExceptOnCreate" and table["UpdateReplacePolicy"] == "Retain"
        assert table["Properties"]["DeletionProtectionEnabled"] is True


API_GATEWAY_CREATES = ("AWS::ApiGateway::Method", "AWS::ApiGateway::Resource")


def test_no_two_nested_stacks_create_api_gateway_methods_at_once(dev, prod):
    """API Gateway's control plane answers concurrent creates on one REST API with 429 (PITFALLS 28): every nested
    stack that creates methods or resources waits, through DependsOn in the parent, for the one before it."""
    for synthesized in (dev, prod):
        stacks = resources(synthesized.parent, "AWS::CloudFormation::Stack")
        creating = [n.logical_id for n in synthesized.nested.values()
                    if any(r["Type"] in API_GATEWAY_CREATES for r in n.raw["Resources"].values())]
        assert len(creating) >= 14

        def after(logical_id: str) -> set[str]:  # every stack this one waits for, transitively
            direct = stacks[logical_id].get("DependsOn", [])
            waits = set(direct if isinstance(direct, list) else [direct]) & set(stacks)
            return waits.union(*(after(w) for w in waits))

        for i, first in enumerate(creating):
            for second in creating[i + 1:]:
                assert first in after(second) or second in after(first), (first, second)


def test_a_replaced_table_is_kept_on_every_stage_for_make_migrate(dev, prod):
    """A key schema change replaces a table; tools/migrate.py copies from the old one, so no stage may delete it."""
    for synthesized in (dev, prod):
        tables = resources(synthesized.merged, "AWS::DynamoDB::Table")
        assert tables and {t["UpdateReplacePolicy"] for t in tables.values()} == {"Retain"}
    assert {t["DeletionPolicy"] for t in resources(dev.merged, "AWS::DynamoDB::Table").values()} == {"Delete"}


def test_nothing_on_prod_outlives_a_failed_first_create(prod):
    """Plain Retain would leave deletion-protected tables and the user pool behind after every failed first deploy."""
    policies = {logical_id: (resource.get("DeletionPolicy"), resource.get("UpdateReplacePolicy"))
                for template in prod.templates.values() for logical_id, resource in template["Resources"].items()
                if "DeletionPolicy" in resource}
    assert [logical_id for logical_id, (deletion, _) in policies.items() if deletion == "Retain"] == []
    kept = {logical_id for logical_id, (deletion, _) in policies.items() if deletion == "RetainExceptOnCreate"}
    assert any(logical_id.startswith("UserPool") for logical_id in kept)
    assert any(logical_id.startswith("CursorSigningKey") for logical_id in kept)


def test_table_spec_matches_template(dev):
    raw = dev.merged
    table = raw["Resources"][logical_id(raw, "AWS::DynamoDB::Table", "ContactsContactTable")]["Properties"]
    expected = CONTACT_TABLE.create_table_kwargs("x")
    assert table["KeySchema"] == expected["KeySchema"]
    assert sorted(table["AttributeDefinitions"], key=str) == sorted(expected["AttributeDefinitions"], key=str)


# --- routes and auth -----------------------------------------------------------------------------------

def template_routes(raw: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(method, path) → method properties, paths rebuilt from the resource tree."""
    api_resources = resources(raw, "AWS::ApiGateway::Resource")

    def path_of(ref: Any) -> str:
        if isinstance(ref, dict) and "Ref" in ref:
            node = api_resources[ref["Ref"]]["Properties"]
            return path_of(node["ParentId"]) + "/" + node["PathPart"]
        return ""  # the API root

    return {
        (m["Properties"]["HttpMethod"], path_of(m["Properties"]["ResourceId"]) or "/"): m["Properties"]
        for m in resources(raw, "AWS::ApiGateway::Method").values()
    }


def normalize(path: str) -> str:
    return re.sub(r"[<{][^>}]+[>}]", "{}", path)


def resolver_routes(app) -> set[tuple[str, str]]:
    return {(r.method, normalize(r.path)) for r in app._static_routes + app._dynamic_routes}


def test_every_route_the_function_serves_is_in_the_api_and_back(dev):
    raw = dev.merged
    in_template = {(m, normalize(p)) for m, p in template_routes(raw)}
    served: set[tuple[str, str]] = set()
    for domain in domain_modules():
        routes = resolver_routes(domain.app)
        assert {(r.method, normalize(r.path)) for r in domain.infra.DOMAIN.routes} == routes, domain.name
        served |= routes
    assert len(served) > 30  # every domain's routes, not an empty set by mistake
    platform = {(r.method, normalize(r.path)) for r in platform_domain.routes(explorer=True)}
    assert platform <= resolver_routes(platform_app)
    assert served <= resolver_routes(platform_app)  # /docs describes every domain
    assert in_template == served | platform


def test_the_openapi_description_names_every_route_as_api_gateway_does(dev):
    """/docs describes exactly the template's routes (but the public ones), parameter names included: a route
    whose `<param>` names differ from its `{param}` in infra/domains (other than snake_case → camelCase) fails."""
    spec = json.loads(platform_app.get_openapi_json_schema())
    described = {(method.upper(), path) for path, ops in spec["paths"].items() for method in ops}
    for path, ops in spec["paths"].items():
        for op in ops.values():
            in_path = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert in_path == set(re.findall(r"{(\w+)}", path)), path
    assert described == set(template_routes(dev.merged)) - PUBLIC


def test_every_method_but_the_public_ones_needs_a_cognito_token(dev):
    template, raw = dev.template, dev.merged
    authorizer = logical_id(raw, "AWS::ApiGateway::Authorizer", "ApiAuthorizer")
    template.has_resource_properties("AWS::ApiGateway::Authorizer", {
        "Type": "COGNITO_USER_POOLS",
        "IdentitySource": "method.request.header.Authorization",
        "ProviderARNs": [{"Fn::GetAtt": [logical_id(raw, "AWS::Cognito::UserPool", "UserPool"), "Arn"]}],
    })
    for (method, path), props in template_routes(raw).items():
        if (method, path) in PUBLIC:
            assert props["AuthorizationType"] == "NONE"
        else:
            assert props["AuthorizationType"] == "COGNITO_USER_POOLS", (method, path)
            assert props["AuthorizerId"] == {"Ref": authorizer}


def test_gateway_refusals_answer_in_the_api_error_shape(dev):
    template = dev.template
    template.has_resource_properties("AWS::ApiGateway::GatewayResponse", {
        "ResponseType": "THROTTLED",
        "StatusCode": "429",
        "ResponseTemplates": {"application/json": Match.string_like_regexp(r'^\{"error": \{"code": "\w+", "message": \$context\.error\.messageString\}\}$')},
    })
    # a 401 says what API Gateway knows (its Cognito authorizer's "Unauthorized") and how to get a token, and carries
    # an RFC 6750 challenge; locally $context.error.message is the reason (local/apigateway/authorizer.py)
    template.has_resource_properties("AWS::ApiGateway::GatewayResponse", {
        "ResponseType": "UNAUTHORIZED",
        "StatusCode": "401",
        "ResponseTemplates": {"application/json": Match.string_like_regexp(
            r'^\{"error": \{"code": "UNAUTHORIZED", "message": "\$context\.error\.message: send an ID token .*'
            r'make token STAGE=<stage> USER=<name> for a deployed stage\)"\}\}$')},
        "ResponseParameters": Match.object_like({"gatewayresponse.header.WWW-Authenticate": Match.string_like_regexp(
            r'^\'Bearer realm="blueprints", error="invalid_token", error_description=".+"\'$')}),
    })
    # an unknown path or method says which matched nothing, not API Gateway's "Missing Authentication Token"
    template.has_resource_properties("AWS::ApiGateway::GatewayResponse", {
        "ResponseType": "MISSING_AUTHENTICATION_TOKEN",
        "StatusCode": "404",
        "ResponseTemplates": {"application/json": (
            '{"error": {"code": "ROUTE_NOT_FOUND", "message": "no route matches $context.httpMethod $context.path"}}')},
    })
    # a throttled client is told when to retry, as the functions' own 429s tell it
    template.has_resource_properties("AWS::ApiGateway::GatewayResponse", {
        "ResponseType": "THROTTLED", "ResponseParameters": {"gatewayresponse.header.Retry-After": "'1'"},
    })


def test_stage_throttles_and_writes_json_access_logs(dev, prod):
    for synthesized, rate in ((dev, 50), (prod, 500)):
        synthesized.template.has_resource_properties("AWS::ApiGateway::Stage", {
            "MethodSettings": Match.array_with([Match.object_like({"ThrottlingRateLimit": rate, "HttpMethod": "*"})]),
            "AccessLogSetting": {"DestinationArn": Match.any_value(), "Format": Match.string_like_regexp(r'^\{"requestId":')},
            "TracingEnabled": True,
        })


def test_user_pool_has_the_admin_and_vehicle_groups_and_no_self_sign_up(dev):
    template, raw = dev.template, dev.merged
    groups = {g["Properties"]["GroupName"] for g in resources(raw, "AWS::Cognito::UserPoolGroup").values()}
    assert groups == {"admin", "vehicle"}
    template.has_resource_properties("AWS::Cognito::UserPool", {
        "AdminCreateUserConfig": {"AllowAdminCreateUserOnly": True},
    })


# --- functions and grants ------------------------------------------------------------------------------

def function_policy(raw: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    policy = raw["Resources"][logical_id(raw, "AWS::IAM::Policy", prefix)]
    return policy["Properties"]["PolicyDocument"]["Statement"]


def keys(schema: list[dict[str, str]]) -> list[tuple[str, str]]:
    """A KeySchema as (attribute, key type) pairs."""
    return [(k["AttributeName"], k["KeyType"]) for k in schema]


def actions(statement: dict[str, Any]) -> list[str]:
    return statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]


def dynamodb_statements(raw: dict[str, Any], policy_prefix: str) -> list[dict[str, Any]]:
    """A function's policy statements that allow a DynamoDB action, as written."""
    return [s for s in function_policy(raw, policy_prefix) if any(a.startswith("dynamodb:") for a in actions(s))]


def dynamodb_grants(raw: dict[str, Any], policy_prefix: str) -> dict[str, list[str]]:
    """A function's DynamoDB statements but the idempotency table's: resource (as sorted JSON) → sorted actions."""
    return {
        json.dumps(s["Resource"], sort_keys=True): sorted(actions(s))
        for s in dynamodb_statements(raw, policy_prefix) if "Idempotency" not in json.dumps(s["Resource"])
    }


def assert_served_behind_a_token(raw: dict[str, Any], routes: set[tuple[str, str]], app) -> None:
    """`routes` (method, path) are the ones `app` serves, and each asks for a Cognito token."""
    assert {(m, normalize(p)) for m, p in routes} == resolver_routes(app)
    for (method, path), props in template_routes(raw).items():
        if (method, path) in routes:
            assert props["AuthorizationType"] == "COGNITO_USER_POOLS", (method, path)




def _granted_pairs(statements: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(resource as sorted JSON, action) for every resource and action the statements allow."""
    pairs = set()
    for statement in statements:
        targets = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        pairs |= {(json.dumps(target, sort_keys=True), action) for target in targets for action in actions(statement)}
    return pairs


@pytest.mark.parametrize("name", [n for n in domain_names() if load_domain(n).grants()])
def test_each_api_function_may_do_exactly_what_its_domain_toml_declares(dev, name):
    """An API function's DynamoDB grants are the union of its patterns' `actions` (functions/<d>/domain.toml) on its
    own tables and indexes, and nothing else: derived, so a new pattern's action needs no edit here or in infra/
    (the functional suite proves each grant needed and used)."""
    raw = dev.merged
    prefix = "".join(part.title() for part in name.split("_"))
    expected = set()
    for grant in load_domain(name).grants():
        arn = {"Fn::GetAtt": [logical_id(raw, "AWS::DynamoDB::Table", f"{prefix}{grant.table}"), "Arn"]}
        expected |= {(json.dumps(arn, sort_keys=True), f"dynamodb:{action}") for action in grant.actions}
        expected |= {(json.dumps({"Fn::Join": ["", [arn, f"/index/{index}"]]}, sort_keys=True), "dynamodb:Query")
                     for index in grant.indexes}
    statements = [s for s in dynamodb_statements(raw, f"{prefix}ApiRoleDefaultPolicy")
                  if "Idempotency" not in json.dumps(s["Resource"])]
    assert _granted_pairs(statements) == expected


def test_no_function_may_scan_and_platform_touches_no_data(dev):
    raw = dev.merged
    for policy in resources(raw, "AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            assert "dynamodb:Scan" not in actions and "dynamodb:*" not in actions
    platform = function_policy(raw, "PlatformApiRole")
    assert all(not a.startswith(("dynamodb:", "secretsmanager:")) for s in platform for a in s["Action"])


def test_no_function_uses_aws_managed_execution_policies(dev):
    raw = dev.merged
    for role in resources(raw, "AWS::IAM::Role").values():
        if role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"].get("Service") == "lambda.amazonaws.com":
            assert "ManagedPolicyArns" not in role["Properties"]


def test_the_cold_start_bench_measures_every_deployed_function(dev):
    """bench section 10 finds its modules by their `lambda_handler`: exactly the handlers the template deploys."""
    from bench.coldstart import handler_modules

    handlers = {f["Properties"]["Handler"] for f in resources(dev.merged, "AWS::Lambda::Function").values()}
    assert {f"{module}.lambda_handler" for module in handler_modules()} == handlers


def test_functions_run_python_313_with_the_powertools_layer(dev):
    template, raw = dev.template, dev.merged
    functions = resources(raw, "AWS::Lambda::Function")
    handlers = {f["Properties"]["Handler"] for f in functions.values()}
    domains = {domain.name for domain in domain_modules(platform=True)}
    assert {f"functions.{name}.api.lambda_handler" for name in domains} <= handlers  # one API function each
    assert {"functions.connected_car.active_customers.lambda_handler", "functions.voting.aggregator.lambda_handler"} <= handlers
    for handler in handlers:  # and stream consumers, each in its own domain's package
        package, domain, module, function = handler.split(".")
        assert (package, function) == ("functions", "lambda_handler") and domain in domains, handler
        importlib.import_module(f"functions.{domain}.{module}")
    for function in functions.values():
        props = function["Properties"]
        assert props["Runtime"] == "python3.13" and props["Architectures"] == ["arm64"]
        assert props["TracingConfig"] == {"Mode": "Active"}
        assert len(props["Layers"]) == 1
    parameters = raw["Parameters"]
    assert any(p.get("Default", "").startswith("/aws/service/powertools/python/arm64/python3.13/3.")
               for p in parameters.values())
    template.has_resource_properties("AWS::Lambda::Function", {
        "Handler": "functions.contacts.api.lambda_handler",
        "Environment": {"Variables": Match.object_like({
            "CONTACTS_TABLE_NAME": {"Ref": logical_id(raw, "AWS::DynamoDB::Table", "ContactsContactTable")},
            "CURSOR_SECRET_ARN": {"Ref": logical_id(raw, "AWS::SecretsManager::Secret", "CursorSigningKey")},
            "POWERTOOLS_SERVICE_NAME": "contacts",
        })},
    })


def test_code_asset_ships_only_the_functions_package_and_the_pinned_sdk(dev):
    raw = dev.merged
    outdir = dev.outdir
    function = next(iter(resources(raw, "AWS::Lambda::Function").values()))
    asset = outdir / function["Metadata"]["aws:asset:path"]
    top = {p.name for p in asset.iterdir()}
    # tests, infra and local never reach Lambda; the SDK is tests/infra/test_function_asset.py's subject
    assert "functions" in top and not top & {"tests", "infra", "local", "seeds", "app.py", "requirements.txt"}
    assert {"boto3", "botocore"} <= top
    assert not list(asset.rglob("__pycache__"))


# --- checks over every template -------------------------------------------------------------------------

def test_cfn_lint_accepts_the_templates(dev, prod):
    paths = [str(path) for synthesized in (dev, prod) for path in synthesized.files.values()]
    assert len(paths) == 2 * (1 + len(dev.nested))
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [str(Path(sys.executable).parent / "cfn-lint"), "--config-file", str(root / ".cfnlintrc.yaml"), "--", *paths],
        capture_output=True, text=True, cwd=root, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_synth_imports_the_domains_schemas_and_no_function_code():
    # infra builds from plain data (functions/<domain>/schema.py, functions/shared/schema.py and table_spec.py, the
    # routes and access patterns' actions of functions/<domain>/domain.toml read by functions/shared/domain.py (with
    # routes.py and catalog.py, the objects it makes), the CORS settings of functions/shared/cors.py): no handler,
    # service or repository, so no Powertools, boto3 or pydantic at synth
    root = Path(__file__).resolve().parents[2]
    probe = "import json, sys, app; print('MODULES', json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=root, check=True)
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("MODULES ")]
    modules = json.loads(line.removeprefix("MODULES "))
    code = [m for m in modules if m.startswith("functions.") and m.count(".") > 1]  # not the packages themselves
    plain = {"functions.shared.cors", "functions.shared.domain", "functions.shared.routes", "functions.shared.catalog"}
    assert code and all(m.endswith((".schema", ".table_spec")) or m in plain for m in code), code
    assert not [m for m in modules if m.split(".")[0] in {"aws_lambda_powertools", "boto3", "botocore", "pydantic"}]


def snapshot_of(raw: dict[str, Any]) -> str:
    text = json.dumps(raw, indent=1, sort_keys=True)
    # CDKMetadata's Analytics names the CDK and Python versions (Python/3.11.7): not the template's business
    text = re.sub(r'"Analytics": "v2:deflate64:[^"]*"', '"Analytics": "<analytics>"', text)
    return re.sub(r"[0-9a-f]{64}(\.zip|\.json)?", "<asset-hash>", text)


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_snapshot(stage, dev, prod):
    """One snapshot per template (the parent and each domain's nested stack) per stage."""
    synthesized = dev if stage == "dev" else prod
    update = os.environ.get("UPDATE_SNAPSHOTS") == "1"
    changed, missing = [], []
    for name, raw in synthesized.templates.items():
        path = SNAPSHOTS / f"{name}.json"
        current = snapshot_of(raw) + "\n"
        if update:
            path.write_text(current)
        if not path.exists():
            missing.append(path.name)
        elif current != path.read_text():
            changed.append(path.name)
    stale = sorted(
        p.name for p in SNAPSHOTS.glob(f"{synthesized.stack.stack_name}*.json")
        if p.stem not in synthesized.templates
    )
    if update:
        for name in stale:
            (SNAPSHOTS / name).unlink()
        stale = []
    assert not missing, f"no snapshot {missing}: run UPDATE_SNAPSHOTS=1 make test-infra and commit them"
    assert not changed, f"templates changed: {changed}: review, then UPDATE_SNAPSHOTS=1 make test-infra"
    assert not stale, f"snapshots of templates that no longer exist: {stale}: UPDATE_SNAPSHOTS=1 removes them"
