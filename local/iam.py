"""IAM as AWS applies it to a Lambda function's calls: the function's role policies from the template.

Why: nothing local checks IAM (PITFALLS 16), so a missing grant passed every test and failed on AWS with
AccessDenied. The local runtime (through `IamEnforcement`, in front of moto) and the functional suite (through
`tests/support/iam.py`) both ask this module whether a call is allowed, with the policies that the synthesized
template attaches to the calling function's role. Statements are evaluated by moto's own evaluator
(`moto.iam.access_control.IAMPolicyStatement`): an explicit Deny wins, then any Allow, else denied.

What a call needs, as AWS documents it ("Actions, resources, and condition keys for Amazon DynamoDB" and "Using
IAM policies with DynamoDB transactions" in the DynamoDB developer guide):
- a single-item or table call needs its own action on the table's ARN; a Query or Scan with `IndexName` needs it
  on the index ARN (`<table ARN>/index/<name>`);
- BatchGetItem / BatchWriteItem need that action on every table of the request;
- TransactWriteItems needs, item by item, PutItem for a Put, UpdateItem for an Update, DeleteItem for a Delete
  and ConditionCheckItem for a ConditionCheck; TransactGetItems needs GetItem per Get;
- stream calls need their action on the stream ARN; Secrets Manager's on the secret ARN; SQS's on the queue ARN.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from local.template import ACCOUNT_ID, PARTITION, Resolver, StackTemplate

log = logging.getLogger("local.iam")

POLICY_TYPE = "AWS::IAM::Policy"
ROLE_TYPE = "AWS::IAM::Role"

# X-Amz-Target prefixes of the JSON protocols our functions use -> IAM service prefix.
_TARGET_SERVICES = {
    "DynamoDB_20120810": "dynamodb",
    "DynamoDBStreams_20120810": "dynamodb",
    "secretsmanager": "secretsmanager",
    "AmazonSQS": "sqs",
}
_TRANSACT_WRITE_ACTIONS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}
_TABLE_OPERATIONS = frozenset(
    {
        "GetItem", "PutItem", "UpdateItem", "DeleteItem", "DescribeTable", "DescribeTimeToLive",
        "UpdateTimeToLive", "UpdateTable", "DeleteTable", "CreateTable",
    }
)
_STREAM_OPERATIONS = frozenset({"DescribeStream", "GetShardIterator", "GetRecords"})


@dataclass(frozen=True)
class Permission:
    """One action on one resource, as IAM authorizes it."""

    action: str  # "dynamodb:UpdateItem"
    resource: str  # an ARN, or "*" for actions without resource-level permissions

    def __str__(self) -> str:
        return f"{self.action} on {self.resource}"


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
    used: set[tuple[str, int, str, int]] = field(default_factory=set)  # (policy, statement, action, resource #)

    @property
    def arn(self) -> str:
        """What AWS names in an AccessDenied message: the assumed-role session of the function."""
        account = self.role_arn.split(":")[4] or ACCOUNT_ID
        role_name = self.role_arn.rsplit("/", 1)[-1]
        return f"arn:{PARTITION}:sts::{account}:assumed-role/{role_name}/{self.session}"

    def first_denied(self, permissions: Iterable[Permission]) -> Permission | None:
        """The first permission these policies do not allow (None: every one is allowed); records what allowed."""
        documents = self.policies()
        for permission in permissions:
            if not self._allowed(documents, permission):
                return permission
        return None

    def _allowed(self, documents: Sequence[PolicyDocument], permission: Permission) -> bool:
        from moto.iam.access_control import IAMPolicyStatement, PermissionResult

        allowed_by: list[tuple[str, int, str, int]] = []
        for document in documents:
            for index, statement in enumerate(document.statements()):
                result = IAMPolicyStatement(statement).is_action_permitted(permission.action, permission.resource)
                if result == PermissionResult.DENIED:
                    return False  # an explicit Deny wins over any Allow
                if result == PermissionResult.PERMITTED:
                    allowed_by.extend(_matching_grants(document.name, index, statement, permission))
        self.used.update(allowed_by)
        return bool(allowed_by)

    def grants(self) -> list[tuple[tuple[str, int, str, int], Grant]]:
        """Every Allow action x resource of the policies (as resolved now), keyed like `used`."""
        found = []
        for document in self.policies():
            for index, statement in enumerate(document.statements()):
                if statement.get("Effect") != "Allow":
                    continue
                for action in _as_list(statement.get("Action")):
                    for position, resource in enumerate(_as_list(statement.get("Resource"))):
                        key = (document.name, index, action, position)
                        found.append((key, Grant(document.name, index, action, resource)))
        return found

    def unused_grants(self) -> list[Grant]:
        return [grant for key, grant in self.grants() if key not in self.used]


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _matching_grants(
    policy: str, index: int, statement: Mapping[str, Any], permission: Permission
) -> Iterator[tuple[str, int, str, int]]:
    """Which action x resource elements of an allowing statement matched (moto's matcher, element by element)."""
    from moto.iam.access_control import IAMPolicyStatement, PermissionResult

    for action in _as_list(statement.get("Action")):
        for position, resource in enumerate(_as_list(statement.get("Resource"))):
            narrowed = {"Effect": "Allow", "Action": action, "Resource": resource}
            if IAMPolicyStatement(narrowed).is_action_permitted(permission.action, permission.resource) == (
                PermissionResult.PERMITTED
            ):
                yield (policy, index, action, position)


# --------------------------------------------------------------------------------------------
# The template: a function's role and the policies attached to it


def role_of(stack: StackTemplate, function_logical_id: str) -> str | None:
    """The logical id of the function's role (`Role: {"Fn::GetAtt": [<Role>, "Arn"]}`), if it is in the stack."""
    role = stack.resources[function_logical_id].get("Properties", {}).get("Role")
    if isinstance(role, Mapping) and "Fn::GetAtt" in role:
        target = role["Fn::GetAtt"]
        logical_id = target[0] if isinstance(target, list) else str(target).split(".")[0]
        if stack.resources.get(logical_id, {}).get("Type") == ROLE_TYPE:
            return logical_id
    return None


def role_policies(stack: StackTemplate, role_logical_id: str, resolver: Resolver) -> list[PolicyDocument]:
    """The role's inline policies and every AWS::IAM::Policy attached to it, intrinsics resolved.

    Managed policies (ManagedPolicyArns) cannot be read locally: a role with one fails loudly rather than being
    guessed at.
    """
    role = stack.resources[role_logical_id].get("Properties", {})
    if role.get("ManagedPolicyArns"):
        raise ValueError(f"{role_logical_id}: managed policies cannot be evaluated locally")
    documents = [
        PolicyDocument(
            f"{role_logical_id}/{inline.get('PolicyName')}",
            resolver.resolve(inline["PolicyDocument"], f"{stack.name}/{role_logical_id}.Policies"),
        )
        for inline in role.get("Policies", [])
    ]
    for logical_id, resource in stack.resources_of_type(POLICY_TYPE).items():
        props = resource.get("Properties", {})
        if {"Ref": role_logical_id} in props.get("Roles", []):
            where = f"{stack.name}/{logical_id}.PolicyDocument"
            documents.append(PolicyDocument(logical_id, resolver.resolve(props["PolicyDocument"], where)))
    return documents


def access_key_for(stack_name: str, function_logical_id: str) -> str:
    """A stable fake access key id per function: how the local endpoint tells its callers apart."""
    digest = hashlib.sha256(f"{stack_name}/{function_logical_id}".encode()).hexdigest().upper()
    return f"ASIA{digest[:16]}"


# --------------------------------------------------------------------------------------------
# What a call needs


def required_permissions(
    service: str, operation: str, params: Mapping[str, Any], *, region: str, account: str = ACCOUNT_ID
) -> list[Permission]:
    """The permissions AWS checks for one API call (service = IAM prefix or botocore service name)."""
    if service in ("dynamodb", "dynamodbstreams"):
        return _dynamodb(operation, params, region, account)
    if service == "secretsmanager":
        secret = str(params.get("SecretId", ""))
        if not secret.startswith("arn:"):
            secret = f"arn:{PARTITION}:secretsmanager:{region}:{account}:secret:{secret}"
        return [Permission(f"secretsmanager:{operation}", secret)]
    if service == "sqs":
        url = str(params.get("QueueUrl", ""))
        name = url.rstrip("/").rsplit("/", 1)[-1] or str(params.get("QueueName", ""))
        return [Permission(f"sqs:{operation}", f"arn:{PARTITION}:sqs:{region}:{account}:{name}")]
    return [Permission(f"{service}:{operation}", "*")]


def _dynamodb(operation: str, params: Mapping[str, Any], region: str, account: str) -> list[Permission]:
    def table_arn(name: str) -> str:
        return name if name.startswith("arn:") else f"arn:{PARTITION}:dynamodb:{region}:{account}:table/{name}"

    action = f"dynamodb:{operation}"
    if operation in ("Query", "Scan"):
        arn = table_arn(str(params.get("TableName", "")))
        index = params.get("IndexName")
        return [Permission(action, f"{arn}/index/{index}" if index else arn)]
    if operation in ("BatchGetItem", "BatchWriteItem"):
        return [Permission(action, table_arn(name)) for name in params.get("RequestItems", {})]
    if operation == "TransactWriteItems":
        permissions = []
        for item in params.get("TransactItems", []):
            for kind, request in item.items():
                permissions.append(
                    Permission(f"dynamodb:{_TRANSACT_WRITE_ACTIONS[kind]}", table_arn(request["TableName"]))
                )
        return permissions
    if operation == "TransactGetItems":
        return [Permission("dynamodb:GetItem", table_arn(item["Get"]["TableName"])) for item in params.get("TransactItems", [])]
    if operation in _STREAM_OPERATIONS and "StreamArn" in params:
        return [Permission(action, str(params["StreamArn"]))]
    if operation in ("GetRecords", "ListStreams", "ListTables"):
        return [Permission(action, "*")]  # GetRecords takes an iterator; the poller checks the stream (see streams)
    if operation in _TABLE_OPERATIONS or "TableName" in params:
        return [Permission(action, table_arn(str(params.get("TableName", ""))))]
    return [Permission(action, "*")]


def check_mapping_role(mapping: Any, principal: Principal) -> None:
    """What Lambda checks when it creates a DynamoDB stream event source mapping, with the function's role.

    AWS Lambda developer guide, "Using AWS Lambda with Amazon DynamoDB" > execution role permissions: the role
    needs dynamodb:DescribeStream, GetRecords, GetShardIterator and ListStreams to read the stream, and
    sqs:SendMessage to send to an SQS on-failure destination. Creating the mapping fails otherwise, so the local
    runtime refuses to start (a deploy would fail the same way).
    """
    needed = [
        Permission(f"dynamodb:{action}", mapping.stream_arn)
        for action in ("DescribeStream", "GetRecords", "GetShardIterator")
    ] + [Permission("dynamodb:ListStreams", "*")]
    if mapping.on_failure and mapping.on_failure.split(":")[2:3] == ["sqs"]:
        needed.append(Permission("sqs:SendMessage", mapping.on_failure))
    denied = principal.first_denied(needed)
    if denied is not None:
        log_denial(principal, denied)
        raise PermissionError(
            f"{mapping.id}: the execution role of {principal.function} cannot perform {denied.action} on "
            f"{denied.resource}: Lambda refuses to create this event source mapping "
            f"({denial_message(principal, denied)})"
        )


def denial_message(principal: Principal, permission: Permission) -> str:
    """AWS's AccessDenied wording for an identity-based policy that does not allow the call."""
    return (
        f"User: {principal.arn} is not authorized to perform: {permission.action} on resource: "
        f"{permission.resource} because no identity-based policy allows the {permission.action} action"
    )


def log_denial(principal: Principal, permission: Permission) -> None:
    log.warning(
        "IAM denied %s: %s. Missing grant: %s on %s in the role of %s (infra/domains/*.py)",
        principal.function,
        permission,
        permission.action,
        permission.resource,
        principal.function,
    )


# --------------------------------------------------------------------------------------------
# The local endpoint


class IamEnforcement:
    """WSGI middleware in front of moto: a call signed with a function's access key is authorized against that
    function's role policies; AccessDenied is answered as the service would. Other callers (the runtime itself,
    seeds, the AWS CLI with `testing` keys) stand for an administrator and pass."""

    def __init__(self, *, region: str) -> None:
        self._app: Callable[..., Iterable[bytes]] | None = None
        self._region = region
        self.principals: dict[str, Principal] = {}  # access key id -> the function's role

    def around(self, app: Callable[..., Iterable[bytes]]) -> IamEnforcement:
        self._app = app
        return self

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        assert self._app is not None, "IamEnforcement.around(app) first"
        principal = self.principals.get(_access_key(environ.get("HTTP_AUTHORIZATION", "")))
        if principal is None:
            return self._app(environ, start_response)
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        call = _parse_call(environ, body)
        if call is None:
            return self._app(environ, start_response)
        service, operation, params = call
        needed = required_permissions(service, operation, params, region=self._region)
        denied = principal.first_denied(needed)
        if denied is None:
            return self._app(environ, start_response)
        log_denial(principal, denied)
        payload = json.dumps(
            {"__type": "com.amazon.coral.service#AccessDeniedException", "message": denial_message(principal, denied)}
        ).encode()
        start_response(
            "400 Bad Request",
            [("Content-Type", "application/x-amz-json-1.0"), ("Content-Length", str(len(payload))),
             ("x-amzn-ErrorType", "AccessDeniedException")],
        )
        return [payload]


def _access_key(authorization: str) -> str:
    """The access key id of a SigV4 `Authorization` header (`... Credential=<key>/<date>/...`)."""
    _, _, rest = authorization.partition("Credential=")
    return rest.split("/", 1)[0]


def _parse_call(environ: Mapping[str, Any], body: bytes) -> tuple[str, str, dict[str, Any]] | None:
    """(IAM service prefix, operation, parameters) of a JSON-protocol or query-protocol request."""
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    if target:
        prefix, _, operation = target.partition(".")
        service = _TARGET_SERVICES.get(prefix, prefix.lower())
        try:
            params = json.loads(body or b"{}")
        except ValueError:
            params = {}
        return service, operation, params
    form = parse_qs(body.decode("utf-8", "replace"))
    if "Action" in form:
        scope = environ.get("HTTP_AUTHORIZATION", "").split("Credential=", 1)[-1].split("/")
        service = scope[3] if len(scope) > 3 else "unknown"
        return service, form["Action"][0], {k: v[0] for k, v in form.items()}
    return None
