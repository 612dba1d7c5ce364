"""Physical resources of one stack: created on moto where moto serves them, faked otherwise.

Why: functions' environment variables are `Ref`/`Fn::GetAtt` on tables, secrets, queues, roles,
user pools... A table must really exist (on moto); a role or a log group only needs a plausible
name or ARN so that the variable resolves. Resources are created on first reference, so the order
of the template does not matter (a queue's redrive policy may name a queue defined after it).
"""

from __future__ import annotations

import json
import logging
import secrets
import string
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from local.template import ACCOUNT_ID, PARTITION, Resolver, StackTemplate, TemplateError

log = logging.getLogger("local.resources")

TABLE_TYPES = ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable")
SECRET_TYPE = "AWS::SecretsManager::Secret"
QUEUE_TYPE = "AWS::SQS::Queue"
FUNCTION_TYPE = "AWS::Lambda::Function"
CREATED_TYPES = (*TABLE_TYPES, SECRET_TYPE, QUEUE_TYPE)

# Fixed so that `python -m local token` (another process) signs tokens the API accepts.
USER_POOL_ID = "us-east-1_local"
USER_POOL_CLIENT_ID = "localclient000000000000000"  # 26 chars, like a real app client id

_LOWER = string.ascii_lowercase
_ALNUM = string.ascii_lowercase + string.digits


@dataclass(frozen=True)
class TableInfo:
    """What later features (stream consumers, TTL sweeper) need to know about a table."""

    logical_id: str
    name: str
    arn: str
    stream_arn: str | None
    ttl_attribute: str | None
    key_schema: tuple[Mapping[str, str], ...]


class Clients:
    """boto3 clients on the local endpoint, created on first use (PITFALLS 5)."""

    def __init__(self, factory: Callable[[str], Any]) -> None:
        self._factory = factory
        self._clients: dict[str, Any] = {}

    def __getitem__(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = self._factory(service)
        return self._clients[service]


class StackResources:
    """`Ref`/`Fn::GetAtt` values for every resource of a stack (an `AttributeSource`)."""

    def __init__(
        self,
        stack: StackTemplate,
        clients: Clients,
        *,
        region: str,
        account_id: str = ACCOUNT_ID,
        exports: Mapping[str, Any] | None = None,
        parameters: Mapping[str, str] | None = None,
    ) -> None:
        self.stack = stack
        self.region = region
        self.account_id = account_id
        self._clients = clients
        self.resolver = Resolver(
            stack,
            self,
            region=region,
            account_id=account_id,
            parameters=parameters,
            exports=exports,
        )
        self._attributes: dict[str, dict[str, Any]] = {}
        self._creating: set[str] = set()
        self.tables: dict[str, TableInfo] = {}

    # AttributeSource ------------------------------------------------------------------------

    def ref(self, logical_id: str) -> Any:
        return self._ensure(logical_id)["Ref"]

    def get_att(self, logical_id: str, attribute: str) -> Any:
        attributes = self._ensure(logical_id)
        if attribute in attributes:
            return attributes[attribute]
        rtype = self._type(logical_id)
        if rtype in CREATED_TYPES or rtype == FUNCTION_TYPE:
            raise TemplateError(
                f"{logical_id}: Fn::GetAtt {attribute!r} is not available locally for {rtype}"
                + (" (does the table have a stream?)" if attribute == "StreamArn" else "")
            )
        return f"{attributes['Ref']}.{attribute}"  # plausible, and never used for real calls

    # provisioning -----------------------------------------------------------------------------

    def provision(self) -> None:
        """Create every table, secret and queue of the stack on the local endpoint."""
        for logical_id, resource in self.stack.resources.items():
            if resource.get("Type") in CREATED_TYPES:
                self._ensure(logical_id)

    def physical_name(self, logical_id: str, max_length: int = 64, suffix: str = "") -> str:
        """A name like CloudFormation generates: `<stack>-<logicalId>-<random>`."""
        random_part = "".join(secrets.choice(_LOWER) for _ in range(6))
        stem = f"{self.stack.name}-{logical_id}"[: max_length - len(random_part) - len(suffix) - 1]
        return f"{stem}-{random_part}{suffix}"

    def _type(self, logical_id: str) -> str:
        return str(self.stack.resources[logical_id].get("Type", ""))

    def _properties(self, logical_id: str) -> dict[str, Any]:
        props = self.stack.resources[logical_id].get("Properties", {})
        return self.resolver.resolve(props, f"{self.stack.name}/{logical_id}.Properties")

    def _ensure(self, logical_id: str) -> dict[str, Any]:
        if logical_id in self._attributes:
            return self._attributes[logical_id]
        if logical_id in self._creating:
            raise TemplateError(f"{self.stack.name}/{logical_id}: circular reference")
        self._creating.add(logical_id)
        try:
            rtype = self._type(logical_id)
            if rtype in TABLE_TYPES:
                attributes = self._create_table(logical_id)
            elif rtype == SECRET_TYPE:
                attributes = self._create_secret(logical_id)
            elif rtype == QUEUE_TYPE:
                attributes = self._create_queue(logical_id)
            else:
                attributes = self._fake(logical_id, rtype)
        finally:
            self._creating.discard(logical_id)
        self._attributes[logical_id] = attributes
        return attributes

    # created on moto --------------------------------------------------------------------------

    def _create_table(self, logical_id: str) -> dict[str, Any]:
        props = self._properties(logical_id)
        name = props.get("TableName") or self.physical_name(logical_id, max_length=255)
        request: dict[str, Any] = {
            "TableName": name,
            "KeySchema": props["KeySchema"],
            "AttributeDefinitions": props["AttributeDefinitions"],
            "BillingMode": "PAY_PER_REQUEST",
        }
        for key in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            indexes = [_index(index) for index in props.get(key, [])]
            if indexes:
                request[key] = indexes
        view_type = (props.get("StreamSpecification") or {}).get("StreamViewType")
        if view_type:
            request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view_type}
        client = self._clients["dynamodb"]
        description = client.create_table(**request)["TableDescription"]
        ttl = props.get("TimeToLiveSpecification") or {}
        ttl_attribute = ttl.get("AttributeName") if _truthy(ttl.get("Enabled")) else None
        if ttl_attribute:
            client.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={"Enabled": True, "AttributeName": ttl_attribute},
            )
        stream_arn = description.get("LatestStreamArn")
        self.tables[logical_id] = TableInfo(
            logical_id=logical_id,
            name=name,
            arn=description["TableArn"],
            stream_arn=stream_arn,
            ttl_attribute=ttl_attribute,
            key_schema=tuple(props["KeySchema"]),
        )
        log.info("table %s -> %s%s", logical_id, name, " (stream)" if stream_arn else "")
        attributes: dict[str, Any] = {"Ref": name, "Arn": description["TableArn"]}
        if stream_arn:
            attributes["StreamArn"] = stream_arn
        attributes["TableId"] = description.get("TableId", str(uuid.uuid4()))
        return attributes

    def _create_secret(self, logical_id: str) -> dict[str, Any]:
        props = self._properties(logical_id)
        name = props.get("Name") or f"{logical_id}-{_random(_ALNUM, 12)}"
        if "SecretString" in props:
            value = str(props["SecretString"])
        else:
            value = generate_secret_string(props.get("GenerateSecretString") or {})
        arn = self._clients["secretsmanager"].create_secret(Name=name, SecretString=value)["ARN"]
        log.info("secret %s -> %s", logical_id, name)
        return {"Ref": arn, "Id": arn, "Name": name}

    def _create_queue(self, logical_id: str) -> dict[str, Any]:
        props = self._properties(logical_id)
        fifo = _truthy(props.get("FifoQueue"))
        name = props.get("QueueName") or self.physical_name(
            logical_id, max_length=80, suffix=".fifo" if fifo else ""
        )
        attributes = {
            key: _attribute_string(props[key])
            for key in (
                "DelaySeconds",
                "MaximumMessageSize",
                "MessageRetentionPeriod",
                "ReceiveMessageWaitTimeSeconds",
                "VisibilityTimeout",
                "FifoQueue",
                "ContentBasedDeduplication",
                "RedrivePolicy",
                "RedriveAllowPolicy",
            )
            if key in props
        }
        client = self._clients["sqs"]
        url = client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
        arn = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        log.info("queue %s -> %s", logical_id, name)
        return {"Ref": url, "Arn": arn, "QueueName": name, "QueueUrl": url}

    # faked ------------------------------------------------------------------------------------

    def _fake(self, logical_id: str, rtype: str) -> dict[str, Any]:
        """Plausible names/ARNs for resources nothing local serves (roles, pools, APIs, ...)."""
        props = self.stack.resources[logical_id].get("Properties", {})
        region, account = self.region, self.account_id

        def arn(service: str, resource: str, *, regional: bool = True) -> str:
            return f"arn:{PARTITION}:{service}:{region if regional else ''}:{account}:{resource}"

        def given(key: str) -> str | None:
            value = props.get(key)
            if value is None:
                return None
            return self.resolver.resolve_string(value, f"{self.stack.name}/{logical_id}.{key}")

        if rtype == FUNCTION_TYPE:
            name = given("FunctionName") or self.physical_name(logical_id)
            return {"Ref": name, "Arn": arn("lambda", f"function:{name}")}
        if rtype == "AWS::IAM::Role":
            name = given("RoleName") or self.physical_name(logical_id)
            role_id = "AROA" + _random(string.ascii_uppercase + string.digits, 17)
            return {
                "Ref": name,
                "Arn": arn("iam", f"role/{name}", regional=False),
                "RoleId": role_id,
            }
        if rtype == "AWS::Logs::LogGroup":
            name = given("LogGroupName") or self.physical_name(logical_id, 512)
            return {"Ref": name, "Arn": arn("logs", f"log-group:{name}:*")}
        if rtype == "AWS::Cognito::UserPool":
            pool_arn = arn("cognito-idp", f"userpool/{USER_POOL_ID}")
            provider = f"cognito-idp.{USER_POOL_ID.split('_')[0]}.amazonaws.com/{USER_POOL_ID}"
            return {
                "Ref": USER_POOL_ID,
                "Arn": pool_arn,
                "UserPoolId": USER_POOL_ID,
                "ProviderName": provider,
                "ProviderURL": f"https://{provider}",
            }
        if rtype == "AWS::Cognito::UserPoolClient":
            return {
                "Ref": USER_POOL_CLIENT_ID,
                "ClientId": USER_POOL_CLIENT_ID,
                "ClientSecret": "local",
            }
        if rtype == "AWS::ApiGateway::RestApi":
            return {"Ref": _random(_ALNUM, 10), "RootResourceId": _random(_ALNUM, 10)}
        if rtype == "AWS::ApiGateway::Stage":
            name = given("StageName") or logical_id
            return {"Ref": name}
        if rtype.startswith("AWS::ApiGateway::"):
            ident = _random(_ALNUM, 6)
            return {"Ref": ident, "ResourceId": ident, "DeploymentId": ident, "AuthorizerId": ident}
        if rtype in ("AWS::Lambda::Version", "AWS::Lambda::Alias"):
            function = given("FunctionName") or logical_id
            qualifier = given("Name") or "1"
            function_arn = (
                function if function.startswith("arn:") else arn("lambda", f"function:{function}")
            )
            return {"Ref": f"{function_arn}:{qualifier}", "Version": qualifier}
        if rtype == "AWS::Lambda::LayerVersion":
            name = given("LayerName") or logical_id
            return {"Ref": arn("lambda", f"layer:{name}:1")}
        if rtype == "AWS::SNS::Topic":
            name = given("TopicName") or self.physical_name(logical_id, 256)
            topic_arn = arn("sns", name)
            return {"Ref": topic_arn, "TopicArn": topic_arn, "TopicName": name}
        if rtype == "AWS::S3::Bucket":
            name = (given("BucketName") or self.physical_name(logical_id, 63)).lower()
            return {
                "Ref": name,
                "Arn": f"arn:{PARTITION}:s3:::{name}",
                "DomainName": f"{name}.s3.amazonaws.com",
                "RegionalDomainName": f"{name}.s3.{region}.amazonaws.com",
            }
        if rtype == "AWS::KMS::Key":
            key_id = str(uuid.uuid4())
            return {"Ref": key_id, "Arn": arn("kms", f"key/{key_id}"), "KeyId": key_id}
        if rtype == "AWS::SSM::Parameter":
            name = given("Name") or f"CFN-{logical_id}-{_random(_ALNUM, 12)}"
            return {"Ref": name, "Type": given("Type") or "String", "Value": given("Value") or ""}
        service = rtype.split("::")[1].lower() if rtype.count("::") == 2 else "unknown"
        name = self.physical_name(logical_id)
        return {"Ref": name, "Arn": arn(service, name)}


def generate_secret_string(spec: Mapping[str, Any]) -> str:
    """Honour CloudFormation's `GenerateSecretString` (template + key, or a bare password)."""
    password = _password(spec)
    template = spec.get("SecretStringTemplate")
    key = spec.get("GenerateStringKey")
    if template is not None and key:
        document = json.loads(template)
        document[key] = password
        return json.dumps(document)
    return password


def _password(spec: Mapping[str, Any]) -> str:
    length = int(spec.get("PasswordLength", 32))
    exclude = set(str(spec.get("ExcludeCharacters", "")))
    groups = []
    if not _truthy(spec.get("ExcludeLowercase")):
        groups.append(string.ascii_lowercase)
    if not _truthy(spec.get("ExcludeUppercase")):
        groups.append(string.ascii_uppercase)
    if not _truthy(spec.get("ExcludeNumbers")):
        groups.append(string.digits)
    if not _truthy(spec.get("ExcludePunctuation")):
        groups.append(string.punctuation)
    if _truthy(spec.get("IncludeSpace")):
        groups.append(" ")
    groups = ["".join(c for c in group if c not in exclude) for group in groups]
    groups = [group for group in groups if group]
    if not groups:
        raise TemplateError("GenerateSecretString excludes every character")
    alphabet = "".join(groups)
    while True:  # RequireEachIncludedType defaults to true
        candidate = "".join(secrets.choice(alphabet) for _ in range(length))
        if length < len(groups) or all(any(c in g for c in candidate) for g in groups):
            return candidate


def _index(index: Mapping[str, Any]) -> dict[str, Any]:
    """A GSI/LSI as create_table takes it (throughput and contributor insights dropped)."""
    return {
        "IndexName": index["IndexName"],
        "KeySchema": index["KeySchema"],
        "Projection": index.get("Projection") or {"ProjectionType": "ALL"},
    }


def _attribute_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def _truthy(value: Any) -> bool:
    return value is True or str(value).lower() == "true"


def _random(alphabet: str, length: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))
