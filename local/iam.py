"""IAM as AWS applies it to a Lambda function's calls, with the policies the template attaches to its role (in its own
stack or nested stack). moto ignores policies (unless asked, and then checks actions only), so the runtime
(`IamEnforcement`, in front of moto) and the functional suite (`tests/support/iam.py`) ask this module, which evaluates
with moto's own evaluator (`moto.iam.access_control.IAMPolicyStatement`): an explicit Deny wins, then any Allow, else
denied (docs/adr/0027-iam-enforced-locally-grants-follow-aws.md).

What a call needs ("Actions, resources, and condition keys for Amazon DynamoDB", "Using IAM policies with DynamoDB
transactions"): its action on the table's ARN, or on `<table ARN>/index/<name>` for a Query or Scan with `IndexName`;
that action on every table for BatchGetItem / BatchWriteItem; for TransactWriteItems, PutItem for a Put, UpdateItem
for an Update, DeleteItem for a Delete, ConditionCheckItem for a ConditionCheck (GetItem per Get for TransactGetItems);
stream, Secrets Manager and SQS calls need their action on the stream, secret or queue ARN.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from local.cloudformation.template import ACCOUNT_ID, PARTITION, Resolver, StackTemplate

log = logging.getLogger("local.iam")

# X-Amz-Target prefixes of the JSON protocols our functions use -> IAM service prefix.
_TARGET_SERVICES = {"DynamoDB_20120810": "dynamodb", "DynamoDBStreams_20120810": "dynamodb",
                    "secretsmanager": "secretsmanager", "AmazonSQS": "sqs"}
_TRANSACT_WRITE_ACTIONS = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                           "ConditionCheck": "ConditionCheckItem"}
GrantKey = tuple[str, int, str, int]  # (policy, statement index, action, resource position)


@dataclass(frozen=True)
class Permission:
    """One action on one resource, as IAM authorizes it."""
    action: str  # "dynamodb:UpdateItem"
    resource: str  # an ARN, or "*" for actions without resource-level permissions


@dataclass(frozen=True)
class Grant:
    """One action x resource pattern of a template statement: the unit a test can leave unused."""
    policy: str  # the AWS::IAM::Policy's logical id (or "<Role>/<PolicyName>" for inline policies)
    statement: int
    action: str
    resource: str  # as resolved when the grant was used or listed

    def __str__(self) -> str:
        return f"{self.action} on {self.resource} ({self.policy}, statement {self.statement})"


@dataclass(frozen=True)
class PolicyDocument:
    name: str
    document: Mapping[str, Any]

    def statements(self) -> list[Mapping[str, Any]]:
        statements = self.document.get("Statement", [])
        return list(statements) if isinstance(statements, list) else [statements]


@dataclass
class Principal:
    """A function's role: who it is (for messages) and the policies that say what it may do."""
    function: str  # the function's logical id, for log lines
    role_arn: str
    session: str  # the function's name: AWS's assumed-role session name for a Lambda function
    policies: Callable[[], Sequence[PolicyDocument]]  # resolved when asked (functional tests change names)
    used: set[GrantKey] = field(default_factory=set)

    @property
    def arn(self) -> str:
        """What AWS names in an AccessDenied message: the assumed-role session of the function."""
        account, role_name = self.role_arn.split(":")[4] or ACCOUNT_ID, self.role_arn.rsplit("/", 1)[-1]
        return f"arn:{PARTITION}:sts::{account}:assumed-role/{role_name}/{self.session}"

    def first_denied(self, permissions: Iterable[Permission]) -> Permission | None:
        """The first permission these policies do not allow (None: every one is allowed); records what allowed."""
        from moto.iam.access_control import IAMPolicyStatement, PermissionResult

        documents = self.policies()
        for permission in permissions:
            allowed_by: list[GrantKey] = []
            for document in documents:
                for index, statement in enumerate(document.statements()):
                    result = IAMPolicyStatement(statement).is_action_permitted(permission.action, permission.resource)
                    if result == PermissionResult.DENIED:
                        return permission  # an explicit Deny wins over any Allow
                    if result == PermissionResult.PERMITTED:  # which action x resource elements matched
                        allowed_by += [
                            (document.name, index, action, position)
                            for action in _as_list(statement.get("Action"))
                            for position, resource in enumerate(_as_list(statement.get("Resource")))
                            if IAMPolicyStatement({"Effect": "Allow", "Action": action, "Resource": resource})
                            .is_action_permitted(permission.action, permission.resource) == PermissionResult.PERMITTED]
            if not allowed_by:
                return permission
            self.used.update(allowed_by)
        return None

    def grants(self) -> list[tuple[GrantKey, Grant]]:
        """Every Allow action x resource of the policies (as resolved now), keyed like `used`."""
        return [((document.name, index, action, position), Grant(document.name, index, action, resource))
                for document in self.policies() for index, statement in enumerate(document.statements())
                if statement.get("Effect") == "Allow" for action in _as_list(statement.get("Action"))
                for position, resource in enumerate(_as_list(statement.get("Resource")))]

    def unused_grants(self) -> list[Grant]:
        return [grant for key, grant in self.grants() if key not in self.used]


def _as_list(value: Any) -> list[str]:
    return [] if value is None else [str(v) for v in value] if isinstance(value, list) else [str(value)]


def role_of(stack: StackTemplate, function_logical_id: str) -> str | None:
    """The logical id of the function's role (`Role: {"Fn::GetAtt": [<Role>, "Arn"]}`), if it is in the stack."""
    role = stack.resources[function_logical_id].get("Properties", {}).get("Role")
    if isinstance(role, Mapping) and "Fn::GetAtt" in role:
        target = role["Fn::GetAtt"]
        logical_id = target[0] if isinstance(target, list) else str(target).split(".")[0]
        if stack.resources.get(logical_id, {}).get("Type") == "AWS::IAM::Role":
            return logical_id
    return None


def role_policies(stack: StackTemplate, role_logical_id: str, resolver: Resolver) -> list[PolicyDocument]:
    """The role's inline policies and every AWS::IAM::Policy of its stack attached to it, intrinsics resolved (a
    nested stack's policies with the parameters its parent passes). Managed policies (ManagedPolicyArns) cannot be
    read locally: a role with one fails loudly rather than being guessed at."""
    role = stack.resources[role_logical_id].get("Properties", {})
    if role.get("ManagedPolicyArns"):
        raise ValueError(f"{role_logical_id}: managed policies cannot be evaluated locally")
    documents = [PolicyDocument(f"{role_logical_id}/{inline.get('PolicyName')}",
                                resolver.resolve(inline["PolicyDocument"], f"{stack.name}/{role_logical_id}.Policies"))
                 for inline in role.get("Policies", [])]
    for logical_id, resource in stack.resources_of_type("AWS::IAM::Policy").items():
        props = resource.get("Properties", {})
        if {"Ref": role_logical_id} in props.get("Roles", []):
            documents.append(PolicyDocument(logical_id, resolver.resolve(
                props["PolicyDocument"], f"{stack.name}/{logical_id}.PolicyDocument")))
    return documents


def access_key_for(stack_name: str, function_logical_id: str) -> str:
    """A stable fake access key id per function: how the local endpoint tells its callers apart."""
    return "ASIA" + hashlib.sha256(f"{stack_name}/{function_logical_id}".encode()).hexdigest().upper()[:16]


def required_permissions(service: str, operation: str, params: Mapping[str, Any], *, region: str,
                         account: str = ACCOUNT_ID) -> list[Permission]:
    """The permissions AWS checks for one API call (service = IAM prefix or botocore service name)."""
    action = f"{'dynamodb' if service == 'dynamodbstreams' else service}:{operation}"
    if service == "secretsmanager":
        secret = str(params.get("SecretId", ""))
        return [Permission(action, secret if secret.startswith("arn:") else
                           f"arn:{PARTITION}:secretsmanager:{region}:{account}:secret:{secret}")]
    if service == "sqs":
        name = str(params.get("QueueUrl", "")).rstrip("/").rsplit("/", 1)[-1] or str(params.get("QueueName", ""))
        return [Permission(action, f"arn:{PARTITION}:sqs:{region}:{account}:{name}")]
    if service not in ("dynamodb", "dynamodbstreams"):
        return [Permission(action, "*")]

    def table_arn(name: Any) -> str:
        name = str(name)
        return name if name.startswith("arn:") else f"arn:{PARTITION}:dynamodb:{region}:{account}:table/{name}"

    if operation in ("Query", "Scan"):
        index = params.get("IndexName")
        return [Permission(action, table_arn(params.get("TableName", "")) + (f"/index/{index}" if index else ""))]
    if operation in ("BatchGetItem", "BatchWriteItem"):
        return [Permission(action, table_arn(name)) for name in params.get("RequestItems", {})]
    if operation == "TransactWriteItems":
        return [Permission(f"dynamodb:{_TRANSACT_WRITE_ACTIONS[kind]}", table_arn(request["TableName"]))
                for item in params.get("TransactItems", []) for kind, request in item.items()]
    if operation == "TransactGetItems":
        return [Permission("dynamodb:GetItem", table_arn(item["Get"]["TableName"]))
                for item in params.get("TransactItems", [])]
    if "StreamArn" in params:  # DescribeStream, GetShardIterator
        return [Permission(action, str(params["StreamArn"]))]
    if "TableName" in params:
        return [Permission(action, table_arn(params["TableName"]))]
    return [Permission(action, "*")]  # GetRecords takes an iterator (check_mapping_role checks the stream), ListTables


def check_mapping_role(mapping: Any, principal: Principal) -> None:
    """What Lambda checks when it creates a DynamoDB stream mapping ("Using AWS Lambda with Amazon DynamoDB" >
    execution role permissions): the function's role needs dynamodb:DescribeStream, GetRecords, GetShardIterator and
    ListStreams, and sqs:SendMessage on an SQS on-failure destination. The start fails otherwise, as a deploy would."""
    needed = [Permission(f"dynamodb:{action}", mapping.stream_arn) for action in ("DescribeStream", "GetRecords",
                                                                                    "GetShardIterator")]
    needed.append(Permission("dynamodb:ListStreams", "*"))
    if mapping.on_failure and mapping.on_failure.split(":")[2:3] == ["sqs"]:
        needed.append(Permission("sqs:SendMessage", mapping.on_failure))
    denied = principal.first_denied(needed)
    if denied is not None:
        log_denial(principal, denied)
        raise PermissionError(f"{mapping.id}: the execution role of {principal.function} cannot perform "
                              f"{denied.action} on {denied.resource}: Lambda refuses to create this event source "
                              f"mapping ({denial_message(principal, denied)})")


def denial_message(principal: Principal, permission: Permission) -> str:
    """AWS's AccessDenied wording for an identity-based policy that does not allow the call."""
    return (f"User: {principal.arn} is not authorized to perform: {permission.action} on resource: "
            f"{permission.resource} because no identity-based policy allows the {permission.action} action")


def log_denial(principal: Principal, permission: Permission) -> None:
    grant = f"{permission.action} on {permission.resource}"
    log.warning("IAM denied %s: %s. Missing grant: %s in the role of %s (infra/domains/*.py)", principal.function,
                grant, grant, principal.function)


class IamEnforcement:
    """WSGI middleware in front of moto: a call signed with a function's access key is authorized against that
    function's role policies; AccessDenied is answered as the service would. Other callers (the runtime itself,
    seeds, the AWS CLI with `testing` keys) stand for an administrator and pass."""

    def __init__(self, app: Callable[..., Iterable[bytes]], *, region: str) -> None:
        self._app, self._region = app, region
        self.principals: dict[str, Principal] = {}  # access key id -> the function's role

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        # The access key id of the SigV4 `Authorization` header (`... Credential=<key>/<date>/...`).
        key = environ.get("HTTP_AUTHORIZATION", "").partition("Credential=")[2].split("/", 1)[0]
        principal, target = self.principals.get(key), environ.get("HTTP_X_AMZ_TARGET", "")
        if principal is None or not target:  # only JSON-protocol calls (all the functions make)
            return self._app(environ, start_response)
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        prefix, _, operation = target.partition(".")
        try:
            params = json.loads(body or b"{}")
        except ValueError:
            params = {}
        needed = required_permissions(_TARGET_SERVICES.get(prefix, prefix.lower()), operation, params,
                                      region=self._region)
        denied = principal.first_denied(needed)
        if denied is None:
            return self._app(environ, start_response)
        log_denial(principal, denied)
        payload = json.dumps({"__type": "com.amazon.coral.service#AccessDeniedException",
                              "message": denial_message(principal, denied)}).encode()
        start_response("400 Bad Request", [("Content-Type", "application/x-amz-json-1.0"), ("Content-Length",
                       str(len(payload))), ("x-amzn-ErrorType", "AccessDeniedException")])
        return [payload]
