"""A deployed stage's own resources, found through CloudFormation, for the operator's tools (`make dlq STAGE=...`,
`make replay STAGE=...`, `make smoke STAGE=...`).

The stage is what CloudFormation created for it: the resources of the stack `Blueprints-<stage>` and of its nested
stacks (ListStackResources, followed into each `AWS::CloudFormation::Stack`). Names and tags are no scope: dev and
prod may share an account and a region; CloudFormation names a resource `<stack>-<logical id>-<suffix>`, cut to the
service's limit (64 characters for a function), so `Blueprints-dev-` also starts the names of a stage `dev-eu`; a
retained resource of a destroyed stage keeps its name; and the stack sets no stage tag
(docs/adr/0118-operator-tools-find-a-stage-by-its-stack.md). The tables a function uses are the ones its environment
names (`TableSpec.env_var`), which is how the functions themselves find them, locally as on AWS.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tools.cognito_users import stack_name

NESTED_STACK_TYPE = "AWS::CloudFormation::Stack"
FUNCTION_TYPE = "AWS::Lambda::Function"


class StageError(Exception):
    """The stage cannot be read as asked: no stack, or its functions disagree on a table."""


def resources(cloudformation: Any, stage: str) -> list[dict[str, Any]]:
    """Every resource of the stage's stack and of its nested stacks, depth first (ListStackResources summaries), but
    those deleted or never created (a rolled-back create's)."""
    from botocore.exceptions import ClientError

    try:
        return list(_resources(cloudformation, stack_name(stage)))
    except ClientError as exc:
        if "does not exist" not in str(exc):
            raise
        raise StageError(f"no stack {stack_name(stage)} in this account and region: deploy it with make deploy "
                         f"STAGE={stage}, or check AWS_REGION") from exc


def _resources(cloudformation: Any, stack: str) -> Iterator[dict[str, Any]]:
    for page in cloudformation.get_paginator("list_stack_resources").paginate(StackName=stack):
        for summary in page["StackResourceSummaries"]:
            if not summary.get("PhysicalResourceId") or summary.get("ResourceStatus") == "DELETE_COMPLETE":
                continue
            yield summary
            if summary["ResourceType"] == NESTED_STACK_TYPE:
                yield from _resources(cloudformation, summary["PhysicalResourceId"])


def functions(session: Any, stage: str) -> list[dict[str, Any]]:
    """The configuration (GetFunctionConfiguration: name, ARN, environment) of every function of the stage."""
    names = [r["PhysicalResourceId"] for r in resources(session.client("cloudformation"), stage)
             if r["ResourceType"] == FUNCTION_TYPE]
    client = session.client("lambda")
    return [client.get_function_configuration(FunctionName=name) for name in names]


def variable(configurations: Iterable[Mapping[str, Any]], name: str) -> str | None:
    """The value the functions are given for `name` (a table's `TableSpec.env_var`: every function that uses the table
    is given its name), None when none is. Two functions giving it different values: StageError."""
    values = {str(value) for c in configurations
              if (value := ((c.get("Environment") or {}).get("Variables") or {}).get(name)) is not None}
    if len(values) > 1:
        raise StageError(f"the functions disagree on {name}: {', '.join(sorted(values))}")
    return values.pop() if values else None
