"""`make deploy STAGE=<stage>`: synth once, check the account, deploy what was synthesized, then migrate.

1. `cdk synth` of the stage into cdk.out (stages.toml's settings; `-c firstCreate=true` while the stack does not
   exist yet: no deletion protection, so that a failed first create rolls back cleanly, docs/adr/0114);
2. the preflight (tools/preflight.py), with the number of functions the synthesized templates hold;
3. `tools/migrate.py record`: the stage's table names before the deploy;
4. `cdk deploy --app cdk.out`: exactly the templates synthesized in step 1;
5. a second pass (synth and deploy again) on a first create of a stage that protects its data (prod), now with
   deletion protection (an UpdateTable / UpdateUserPool, no replacement); and on an upgrade whose migrations retire
   an index (tools/migrate.py `Migration.retires`): the first pass kept it (`-c keepRetiredIndexes=true`), the
   migrations ran, the second drops it;
6. `tools/migrate.py run`: a table replaced by a key change is copied into its new layout (docs/adr/0113).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from infra.constructs.rest_api import (
    EXECUTION_LOG_GROUP_CONTEXT,
    EXECUTION_LOG_RETENTION_DAYS,
    execution_log_group_name,
)

ROOT = Path(__file__).resolve().parents[1]
ASSEMBLY = ROOT / "cdk.out"
Runner = Callable[[Sequence[str]], int]


def stack_exists(cloudformation: Any, stack: str) -> bool:
    from botocore.exceptions import ClientError

    try:
        stacks = cloudformation.describe_stacks(StackName=stack)["Stacks"]
    except ClientError as error:
        if "does not exist" in str(error):
            return False
        raise
    # A first create that failed and rolled back leaves a stack that can only be deleted, and a change set never run
    # leaves one under review: either way still a first create (as the CDK CLI sees it)
    return any(s["StackStatus"] not in ("ROLLBACK_COMPLETE", "DELETE_COMPLETE", "REVIEW_IN_PROGRESS") for s in stacks)


def count_functions(assembly: Path, stack: str) -> int:
    """AWS::Lambda::Function resources of the stack's template and its nested ones in a synthesized assembly."""
    return _count(assembly, assembly / f"{stack}.template.json")


def _count(assembly: Path, template: Path) -> int:
    resources = json.loads(template.read_text(encoding="utf-8")).get("Resources", {})
    count = 0
    for resource in resources.values():
        if resource.get("Type") == "AWS::Lambda::Function":
            count += 1
        elif resource.get("Type") == "AWS::CloudFormation::Stack":  # its template: the asset its metadata names
            count += _count(assembly, assembly / resource["Metadata"]["aws:asset:path"])
    return count


def cdk(*args: str) -> list[str]:
    return ["npx", "cdk", *args]


def deploy(stage: str, context: Sequence[str], session: Any, run: Runner, *, assembly: Path = ASSEMBLY) -> int:
    """The steps of the module docstring; `run` runs a command (the tests record them instead)."""
    from tools import migrate, preflight

    stack = f"Blueprints-{stage}"
    cloudformation = session.client("cloudformation")
    first = not stack_exists(cloudformation, stack)
    retired = [] if first else migrate.retiring(session.client("dynamodb"), migrate.stage_tables(cloudformation, stack),
                                                list(migrate.migrations()))
    external_logs = None if first else external_execution_logs(session, stack, stage)
    if external_logs:
        context = [*context, f"{EXECUTION_LOG_GROUP_CONTEXT}=external"]
    flags = [word for pair in (f"stage={stage}", *context) for word in ("-c", pair)]
    synth = cdk("synth", "--quiet", "-o", str(assembly), *flags)
    deploy_it = cdk("deploy", "--app", str(assembly), stack)
    if retired:
        print(f"upgrading: {', '.join(retired)} retire once the items are migrated: deploying in two passes",
              file=sys.stderr)
    first_pass = ["-c", f"{migrate.KEEP_RETIRED_INDEXES}=true"] if retired else (
        ["-c", "firstCreate=true"] if first else [])
    if code := run(synth + first_pass):
        return code
    if line := preflight.problem(session, functions=count_functions(assembly, stack)):
        print(f"preflight: {line}", file=sys.stderr)
        return 1
    migrate.record(cloudformation, stage)
    second = [*(["the retired indexes dropped"] if retired else []),
              *(["deletion protection on"] if first and stage == "prod" else [])]
    steps: list[Callable[[], int]] = [lambda: run(deploy_it)]
    if retired:
        # the new indexes are built after CloudFormation moves on: wait, then fill them, then drop the old ones
        steps.append(lambda: _wait_for_indexes(session, stack, {name.split(".")[0] for name in retired}))
        steps.append(lambda: migrate.main(["run", "--stage", stage]))
    if second:
        steps += [lambda: _say(f"second pass: {' and '.join(second)}"), lambda: run(synth), lambda: run(deploy_it)]
    steps.append(lambda: migrate.main(["run", "--stage", stage]))
    if external_logs:
        steps.append(lambda: _retain(session, external_logs))
    for step in steps:
        if code := step():
            return code
    return 0


def external_execution_logs(session: Any, stack: str, stage: str) -> str | None:
    """The stage's API Gateway execution log group when it exists outside the stack (API Gateway made it before the
    stack had one): its name, or None. The stack cannot create a group of that name then; the deploy keeps it out
    of the template and sets its retention instead."""
    cloudformation = session.client("cloudformation")
    resources = [r for page in cloudformation.get_paginator("list_stack_resources").paginate(StackName=stack)
                 for r in page["StackResourceSummaries"]]
    if any(r["ResourceType"] == "AWS::Logs::LogGroup" and
           str(r.get("PhysicalResourceId", "")).startswith("API-Gateway-Execution-Logs_") for r in resources):
        return None  # the stack owns it
    api = next((r["PhysicalResourceId"] for r in resources if r["ResourceType"] == "AWS::ApiGateway::RestApi"), None)
    if api is None:
        return None
    name = execution_log_group_name(api, stage)
    groups = session.client("logs").describe_log_groups(logGroupNamePrefix=name)["logGroups"]
    return name if any(g["logGroupName"] == name for g in groups) else None


def _retain(session: Any, group: str) -> int:
    session.client("logs").put_retention_policy(logGroupName=group, retentionInDays=EXECUTION_LOG_RETENTION_DAYS)
    return _say(f"{group}: kept {EXECUTION_LOG_RETENTION_DAYS} days (it was made by API Gateway, outside the stack)")


def _wait_for_indexes(session: Any, stack: str, constructs: set[str]) -> int:
    from tools import migrate

    tables = migrate.stage_tables(session.client("cloudformation"), stack)
    migrate.wait_for_indexes(session.client("dynamodb"), [tables[c] for c in sorted(constructs) if c in tables])
    return 0


def _say(line: str) -> int:
    print(line, file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.deploy", description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", required=True)
    parser.add_argument("-c", "--context", action="append", default=[], metavar="KEY=VALUE",
                        help="a CDK context value for this deploy only (stages.toml keeps the lasting ones)")
    args = parser.parse_args(argv)
    from botocore.exceptions import BotoCoreError, NoCredentialsError

    from tools.region import session

    try:
        return deploy(args.stage, args.context, session(),
                      lambda command: subprocess.call(list(command), cwd=ROOT))  # noqa: S603 (npx cdk, our arguments)
    except NoCredentialsError:
        print("deploy: no AWS credentials: configure a profile (aws configure, or AWS_PROFILE)", file=sys.stderr)
    except BotoCoreError as error:
        print(f"deploy: {error}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
