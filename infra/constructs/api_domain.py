"""A domain of the API, declared as data and built in its own nested stack.

A domain is its table specs (`functions/<domain>/schema.py`), its routes, its grants and its stream consumers.
`ApiDomain` builds the rest, the same way for every domain:
- a nested stack named after the domain, holding everything below (the parent keeps the API, its Deployment
  and Stage, auth, the cursor secret and the shared tables: `infra/stack.py`);
- one `SpecTable` per spec;
- the API function `functions.<domain>.api.lambda_handler`, with every table's name in the variable its spec
  names, the idempotency table's name, and the cursor secret's ARN when a route is `paged`;
- exactly the grants listed (`SpecTable.grant`: actions on the table, Query on the named indexes): for a domain
  declared in functions/<domain>/domain.toml, the union of its access patterns' actions (`pattern_grants`); PutItem/
  UpdateItem/DeleteItem on the idempotency table, GetSecretValue on the cursor secret when it has it;
- the routes on the shared REST API, with one invoke permission for the function;
- each stream consumer (`StreamConsumer`: DLQ, bounded retries, parked records), with its source table's and
  granted tables' names in its environment, and its grants;
- the alarms on its consumers, and its dashboard section (infra/constructs/monitoring.py).

The domain's constructs sit under a construct named after the domain inside its nested stack, so their logical
ids are those they had when every domain shared one stack (`ContactsApiFunction…`, `ConnectedCarDealerTable…`):
tests, the local runtime and a future stack refactoring find each resource under the name it always had.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aws_cdk import Duration, NestedStack, RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from functions.shared.cors import CORS_ORIGINS_ENV
from functions.shared.domain import Domain
from functions.shared.routes import Route
from functions.shared.schema import EXPLAIN_ENV, IDEMPOTENCY_TABLE
from functions.shared.table_spec import TableSpec
from infra.constructs.api_function import ApiFunction, SharedCode, grant_secret_value
from infra.constructs.monitoring import StageAlarms, Watched, parked_records_metric, watch_consumers, watch_tables
from infra.constructs.nag import acknowledge
from infra.constructs.rest_api import BlueprintsApi
from infra.constructs.spec_table import IDEMPOTENCY_ACTIONS, SpecTable
from infra.constructs.stream_consumer import (
    DEFAULT_BATCHING_WINDOW,
    DEFAULT_MAX_RECORD_AGE,
    DEFAULT_RETRY_ATTEMPTS,
    DEFAULT_TIMEOUT,
    StreamConsumer,
)

# The variable functions/shared/cursors.py reads the cursor-signing secret's ARN from (CURSOR_SECRET_ENV there;
# that module imports Powertools, which synth does not need).
CURSOR_SECRET_ENV = "CURSOR_SECRET_ARN"  # noqa: S105  the name of a variable that holds an ARN, not a secret


@dataclass(frozen=True)
class Grant:
    """What a function may do on one of the domain's tables: `actions` on the table, Query on `indexes`."""

    table: TableSpec
    actions: tuple[str, ...] = ()
    indexes: tuple[str, ...] = ()


def pattern_grants(domain: Domain, tables: Sequence[TableSpec]) -> list[Grant]:
    """The API function's grants: the union of the actions the domain's access patterns declare (domain.toml
    `actions`), a `Grant` a table in the order of `tables` (its indexes in the spec's order). A pattern naming a
    table or an index the domain does not have fails the synth."""
    declared = {grant.table: grant for grant in domain.grants()}
    specs = {spec.construct_id: spec for spec in tables}
    unknown = sorted(declared.keys() - specs.keys())
    if unknown:
        raise ValueError(f"functions/{domain.name}/domain.toml: actions on {unknown}, not a table of {sorted(specs)}")
    grants = []
    for spec in tables:
        if spec.construct_id in declared:
            grant = declared[spec.construct_id]
            for name in grant.indexes:
                spec.index(name)  # KeyError: no such index
            indexes = tuple(index.name for index in spec.indexes if index.name in grant.indexes)
            grants.append(Grant(spec, grant.actions, indexes))
    return grants


@dataclass(frozen=True)
class Consumer:
    """A stream consumer: `functions.<domain>.<module>.lambda_handler` reading `source`'s stream.

    `filters`: Lambda event filter patterns (FilterCriteria, ORed): a record none matches is discarded before any
    invocation. Only for records the consumer's code provably ignores; the code keeps its own check.
    """

    construct_id: str
    module: str
    source: TableSpec
    grants: tuple[Grant, ...] = ()
    environment: Mapping[str, str] = field(default_factory=dict)
    batch_size: int = 100
    max_batching_window: Duration = DEFAULT_BATCHING_WINDOW
    retry_attempts: int = DEFAULT_RETRY_ATTEMPTS
    max_record_age: Duration = DEFAULT_MAX_RECORD_AGE
    timeout: Duration = DEFAULT_TIMEOUT
    tumbling_window: Duration | None = None
    filters: tuple[Mapping[str, Any], ...] = ()


@dataclass(frozen=True)
class SharedInfra:
    """What the parent stack gives every domain."""

    api: BlueprintsApi
    code: SharedCode
    cursor_secret: secretsmanager.ISecret
    idempotency: SpecTable
    parked: SpecTable
    removal_policy: RemovalPolicy
    deletion_protection: bool
    # The API functions may answer the items their calls read or wrote, for the model explorer (dev stage only:
    # functions/shared/schema.py, EXPLAIN_ENV).
    explain: bool = False
    # GET /explorer is served (infra/domains/platform.py; `-c explorer=…`, infra/stack.py).
    explorer: bool = True
    # Makes the domain's alarms, with the stage's action (infra/constructs/monitoring.py).
    alarms: StageAlarms = field(default_factory=StageAlarms)


class ApiDomain(Construct):
    """One domain in its own nested stack (`self.stack`); `scope` is the parent stack."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        shared: SharedInfra,
        service: str,
        package: str,
        tables: Sequence[TableSpec] = (),
        routes: Iterable[Route] = (),
        grants: Sequence[Grant] = (),
        consumers: Sequence[Consumer] = (),
        environment: Mapping[str, str] | None = None,
        idempotency: bool = True,
    ):
        self.stack = NestedStack(scope, construct_id, description=f"Blueprints: the {service} domain")
        super().__init__(self.stack, construct_id)
        self.tables = {
            spec.construct_id: SpecTable(
                self, spec, removal_policy=shared.removal_policy, deletion_protection=shared.deletion_protection
            )
            for spec in tables
        }
        routes = tuple(routes)
        paged = any(route.paged for route in routes)
        self.api_function = ApiFunction(
            self,
            "Api",
            shared=shared.code,
            handler=f"{package}.api.lambda_handler",
            service=service,
            removal_policy=shared.removal_policy,
            environment={
                **{table.spec.env_var: table.table.table_name for table in self.tables.values()},
                **({CURSOR_SECRET_ENV: shared.cursor_secret.secret_arn} if paged else {}),
                **({IDEMPOTENCY_TABLE.env_var: shared.idempotency.table.table_name} if idempotency else {}),
                **({EXPLAIN_ENV: "items"} if shared.explain else {}),
                # The origins whose pages may call the API, for the CORS headers of the answers
                # (functions/shared/cors.py)
                **({CORS_ORIGINS_ENV: ",".join(shared.api.cors_origins)} if shared.api.cors_origins else {}),
                **(environment or {}),
            },
        ).function
        self._grant(self.api_function, grants)
        if idempotency:
            shared.idempotency.grant(self.api_function, IDEMPOTENCY_ACTIONS)
        if paged:
            grant_secret_value(self.api_function, shared.cursor_secret)
        self.methods = shared.api.add_routes(self, self.api_function, list(routes))
        for route, method in zip(routes, self.methods, strict=True):
            if route.public:
                reason = (f"{route.method} {route.path} is public by design (`public = true` in "
                          "functions/<domain>/domain.toml).")
                acknowledge(method, "AwsSolutions-APIG4", reason)
                acknowledge(method, "AwsSolutions-COG4", reason)

        self.consumers = {
            consumer.construct_id: self._consumer(consumer, shared, package, service) for consumer in consumers
        }
        # Alarms beside what they watch, in this nested stack; the parent's dashboard draws `watched`.
        self.watched = Watched(
            title=construct_id,
            service=service,
            stage=shared.alarms.stage,
            consumers=watch_consumers(shared.alarms, self.consumers),
            parked=parked_records_metric(service, shared.alarms.stage) if self.consumers else None,
            tables=watch_tables(self.tables.values()),
            functions=[("API", self.api_function)] + [(name, c.function) for name, c in self.consumers.items()],
        )

    def table(self, spec: TableSpec) -> SpecTable:
        try:
            return self.tables[spec.construct_id]
        except KeyError:
            raise ValueError(f"{spec.construct_id} is not a table of {self.node.id}: list it in `tables`") from None

    def _grant(self, function: iam.IGrantable, grants: Sequence[Grant]) -> None:
        for grant in grants:
            self.table(grant.table).grant(function, list(grant.actions), indexes=grant.indexes)

    def _consumer(self, consumer: Consumer, shared: SharedInfra, package: str, service: str) -> StreamConsumer:
        used = {consumer.source.construct_id} | {grant.table.construct_id for grant in consumer.grants}
        stream_consumer = StreamConsumer(
            self,
            consumer.construct_id,
            table=self.table(consumer.source),
            parked=shared.parked,
            shared=shared.code,
            handler=f"{package}.{consumer.module}.lambda_handler",
            service=service,
            environment={
                **{t.spec.env_var: t.table.table_name for t in self.tables.values() if t.spec.construct_id in used},
                **consumer.environment,
            },
            removal_policy=shared.removal_policy,
            batch_size=consumer.batch_size,
            max_batching_window=consumer.max_batching_window,
            retry_attempts=consumer.retry_attempts,
            max_record_age=consumer.max_record_age,
            timeout=consumer.timeout,
            tumbling_window=consumer.tumbling_window,
            filters=consumer.filters,
        )
        self._grant(stream_consumer.function, consumer.grants)
        return stream_consumer
