"""Physical resources of a stack and of its nested stacks: created on moto where moto serves them (tables, secrets,
queues), faked otherwise (a role or a log group only needs a plausible name or ARN for `Ref`/`Fn::GetAtt` to resolve).
Created on first reference, so template order does not matter. A nested stack (`AWS::CloudFormation::Stack`) gets the
`Parameters` its parent passes, resolved in the parent, which reads back `Fn::GetAtt [<NestedStack>, Outputs.<Name>]`.
"""

from __future__ import annotations

import logging
import secrets
import string
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from local.cloudformation.template import (
    ACCOUNT_ID,
    NESTED_STACK_TYPE,
    PARTITION,
    Resolver,
    StackTemplate,
    TemplateError,
)

log = logging.getLogger("local.cloudformation.resources")

TABLE_TYPES = ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable")
SECRET_TYPE = "AWS::SecretsManager::Secret"  # noqa: S105  a resource type's name, not a secret
QUEUE_TYPE = "AWS::SQS::Queue"
FUNCTION_TYPE = "AWS::Lambda::Function"
CREATED_TYPES = (*TABLE_TYPES, SECRET_TYPE, QUEUE_TYPE, NESTED_STACK_TYPE)
# Fixed so that `python -m local token` (another process) signs tokens the API accepts.
USER_POOL_ID = "us-east-1_local"
USER_POOL_CLIENT_ID = "localclient000000000000000"  # 26 chars, like a real app client id
_QUEUE_ATTRIBUTES = ("DelaySeconds", "MaximumMessageSize", "MessageRetentionPeriod", "ReceiveMessageWaitTimeSeconds",
                     "VisibilityTimeout")


@dataclass(frozen=True)
class TableInfo:
    """What the stream pollers and the TTL sweeper need to know about a table."""
    logical_id: str
    name: str
    arn: str
    stream_arn: str | None
    ttl_attribute: str | None
    key_schema: tuple[Mapping[str, str], ...]


class Clients(dict[str, Any]):
    """boto3 clients on the local endpoint, by service, created on first use, never at import."""

    def __init__(self, factory: Callable[[str], Any]) -> None:
        super().__init__()
        self._factory = factory

    def __missing__(self, service: str) -> Any:
        self[service] = self._factory(service)
        return self[service]


class StackResources:
    """`Ref`/`Fn::GetAtt` values for every resource of a stack (what its `Resolver` reads); `nested` holds the
    resources of its nested stacks, by the logical id of their `AWS::CloudFormation::Stack` resource."""

    def __init__(self, stack: StackTemplate, clients: Clients, *, region: str, account_id: str = ACCOUNT_ID,
                 parameters: Mapping[str, Any] | None = None) -> None:
        self.stack, self.region, self.account_id, self._clients = stack, region, account_id, clients
        self.resolver = Resolver(stack, self, region=region, account_id=account_id, parameters=parameters)
        self._attributes: dict[str, dict[str, Any]] = {}
        self.tables: dict[str, TableInfo] = {}
        self.nested: dict[str, StackResources] = {}

    def walk(self) -> Iterator[StackResources]:
        """This stack, then its nested stacks, depth first."""
        yield self
        for child in self.nested.values():
            yield from child.walk()

    def ref(self, logical_id: str) -> Any:
        return self._ensure(logical_id)["Ref"]

    def get_att(self, logical_id: str, attribute: str) -> Any:
        attributes = self._ensure(logical_id)
        if attribute in attributes:
            return attributes[attribute]
        rtype = self._type(logical_id)
        if rtype == NESTED_STACK_TYPE and attribute.startswith("Outputs."):
            return self.nested[logical_id].output(attribute.removeprefix("Outputs."))
        if rtype in CREATED_TYPES or rtype == FUNCTION_TYPE:
            hint = " (does the table have a stream?)" if attribute == "StreamArn" else ""
            raise TemplateError(f"{self.stack.name}/{logical_id}: Fn::GetAtt {attribute!r} is not available locally "
                                f"for {rtype}{hint}")
        return f"{attributes['Ref']}.{attribute}"  # plausible, and never used for real calls

    def output(self, name: str) -> Any:
        outputs = self.stack.template.get("Outputs", {})
        if name not in outputs:
            raise TemplateError(f"{self.stack.name} has no output {name!r}")
        return self.resolver.resolve(outputs[name].get("Value"), f"{self.stack.name}/Outputs.{name}")

    def provision(self) -> None:
        """Create every table, secret, queue and nested stack of the stack on the local endpoint."""
        for logical_id, resource in self.stack.resources.items():
            if resource.get("Type") in CREATED_TYPES:
                self._ensure(logical_id)

    def physical_name(self, logical_id: str, max_length: int = 64) -> str:
        """A name like CloudFormation generates, `<stack>-<logicalId>-<random>`, each part cut to fit (a nested stack's
        long name must not push the logical id out of its function's name: `make replay --function` matches it)."""
        budget = max_length - 8
        logical = logical_id[: max(budget // 2, budget - len(self.stack.name))]
        return f"{self.stack.name[: budget - len(logical)]}-{logical}-{_random(string.ascii_lowercase, 6)}"

    def _type(self, logical_id: str) -> str:
        return str(self.stack.resources[logical_id].get("Type", ""))

    def _properties(self, logical_id: str) -> dict[str, Any]:
        props = self.stack.resources[logical_id].get("Properties", {})
        return self.resolver.resolve(props, f"{self.stack.name}/{logical_id}.Properties")

    def _ensure(self, logical_id: str) -> dict[str, Any]:
        """The resource's attributes, creating it on first use (CloudFormation and CDK refuse circular references)."""
        if logical_id not in self._attributes:
            rtype = self._type(logical_id)
            create = {SECRET_TYPE: self._secret, QUEUE_TYPE: self._queue, NESTED_STACK_TYPE: self._nested_stack}.get(
                rtype, self._table if rtype in TABLE_TYPES else self._fake)
            self._attributes[logical_id] = create(logical_id)
        return self._attributes[logical_id]

    def _table(self, logical_id: str) -> dict[str, Any]:
        props = self._properties(logical_id)
        name = props.get("TableName") or self.physical_name(logical_id, max_length=255)
        request: dict[str, Any] = {"TableName": name, "KeySchema": props["KeySchema"], "BillingMode": "PAY_PER_REQUEST",
                                   "AttributeDefinitions": props["AttributeDefinitions"]}
        for key in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            if props.get(key):  # throughput and contributor insights dropped
                request[key] = [{"IndexName": i["IndexName"], "KeySchema": i["KeySchema"],
                                 "Projection": i.get("Projection") or {"ProjectionType": "ALL"}} for i in props[key]]
        view_type = (props.get("StreamSpecification") or {}).get("StreamViewType")
        if view_type:
            request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view_type}
        client = self._clients["dynamodb"]
        description = client.create_table(**request)["TableDescription"]
        ttl = props.get("TimeToLiveSpecification") or {}
        ttl_attribute = ttl.get("AttributeName") if _truthy(ttl.get("Enabled")) else None
        if ttl_attribute:
            client.update_time_to_live(TableName=name,
                                       TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl_attribute})
        stream_arn = description.get("LatestStreamArn")
        self.tables[logical_id] = TableInfo(logical_id, name, description["TableArn"], stream_arn, ttl_attribute,
                                            tuple(props["KeySchema"]))
        log.info("table %s -> %s%s", logical_id, name, " (stream)" if stream_arn else "")
        return {"Ref": name, "Arn": description["TableArn"], "TableId": description.get("TableId", ""),
                **({"StreamArn": stream_arn} if stream_arn else {})}

    def _secret(self, logical_id: str) -> dict[str, Any]:
        props = self._properties(logical_id)
        name = props.get("Name") or f"{logical_id}-{_random(string.ascii_lowercase + string.digits, 12)}"
        value = str(props["SecretString"]) if "SecretString" in props else generate_secret_string(
            props.get("GenerateSecretString") or {})
        arn = self._clients["secretsmanager"].create_secret(Name=name, SecretString=value)["ARN"]
        log.info("secret %s -> %s", logical_id, name)
        return {"Ref": arn, "Id": arn, "Name": name}

    def _queue(self, logical_id: str) -> dict[str, Any]:
        props = self._properties(logical_id)
        if _truthy(props.get("FifoQueue")) or "RedrivePolicy" in props:
            raise TemplateError(f"{self.stack.name}/{logical_id}: FIFO queues and redrive policies are not emulated")
        name = props.get("QueueName") or self.physical_name(logical_id, max_length=80)
        client = self._clients["sqs"]
        attributes = {k: str(props[k]) for k in _QUEUE_ATTRIBUTES if k in props}
        url = client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
        arn = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        log.info("queue %s -> %s", logical_id, name)
        return {"Ref": url, "Arn": arn, "QueueName": name, "QueueUrl": url}

    def _nested_stack(self, logical_id: str) -> dict[str, Any]:
        parameters = self._properties(logical_id).get("Parameters") or {}
        child = StackResources(self.stack.nested[logical_id], self._clients, region=self.region,
                               account_id=self.account_id, parameters=parameters)
        self.nested[logical_id] = child
        log.info("nested stack %s -> %s", logical_id, child.stack.name)
        child.provision()
        return {"Ref": child.resolver.resolve({"Ref": "AWS::StackId"}, logical_id)}

    def _fake(self, logical_id: str) -> dict[str, Any]:
        """Plausible names/ARNs for resources nothing local serves (roles, pools, APIs, ...)."""
        rtype, region, account = self._type(logical_id), self.region, self.account_id
        props = self.stack.resources[logical_id].get("Properties", {})

        def arn(service: str, resource: str, regional: bool = True) -> str:
            return f"arn:{PARTITION}:{service}:{region if regional else ''}:{account}:{resource}"

        def given(key: str, default: str) -> str:
            value = props.get(key)
            return default if value is None else self.resolver.resolve_string(value, f"{logical_id}.{key}")

        if rtype == FUNCTION_TYPE:
            name = given("FunctionName", self.physical_name(logical_id))
            return {"Ref": name, "Arn": arn("lambda", f"function:{name}")}
        if rtype == "AWS::IAM::Role":
            name = given("RoleName", self.physical_name(logical_id))
            return {"Ref": name, "Arn": arn("iam", f"role/{name}", regional=False),
                    "RoleId": "AROA" + _random(string.ascii_uppercase + string.digits, 17)}
        if rtype == "AWS::Logs::LogGroup":
            name = given("LogGroupName", self.physical_name(logical_id, 512))
            return {"Ref": name, "Arn": arn("logs", f"log-group:{name}:*")}
        if rtype == "AWS::Cognito::UserPool":
            provider = f"cognito-idp.{region}.amazonaws.com/{USER_POOL_ID}"
            return {"Ref": USER_POOL_ID, "Arn": arn("cognito-idp", f"userpool/{USER_POOL_ID}"),
                    "UserPoolId": USER_POOL_ID, "ProviderName": provider, "ProviderURL": f"https://{provider}"}
        if rtype == "AWS::Cognito::UserPoolClient":
            return {"Ref": USER_POOL_CLIENT_ID, "ClientId": USER_POOL_CLIENT_ID}
        if rtype == "AWS::ApiGateway::Stage":
            return {"Ref": given("StageName", logical_id)}
        if rtype.startswith("AWS::ApiGateway::"):  # ids API Gateway generates: the RestApi's, a Resource's...
            ident = _random(string.ascii_lowercase + string.digits, 10)
            return {"Ref": ident, "RootResourceId": _random(string.ascii_lowercase + string.digits, 10)}
        name = self.physical_name(logical_id)
        return {"Ref": name, "Arn": arn(rtype.split("::")[1].lower() if rtype.count("::") == 2 else "unknown", name)}


def generate_secret_string(spec: Mapping[str, Any]) -> str:
    """CloudFormation's `GenerateSecretString`, as far as our templates use it (length, punctuation, exclusions)."""
    unsupported = set(spec) - {"PasswordLength", "ExcludePunctuation", "ExcludeCharacters"}
    if unsupported:
        raise TemplateError(f"GenerateSecretString: {sorted(unsupported)} not supported locally")
    characters = string.ascii_letters + string.digits
    characters += "" if _truthy(spec.get("ExcludePunctuation")) else string.punctuation
    alphabet = [c for c in characters if c not in spec.get("ExcludeCharacters", "")]
    return _random(alphabet, int(spec.get("PasswordLength", 32)))


def _truthy(value: Any) -> bool:
    return value is True or str(value).lower() == "true"


def _random(alphabet: Sequence[str], length: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))
