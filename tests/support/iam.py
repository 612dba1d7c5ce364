"""IAM in the functional suite: a handler runs under the policies the synthesized template gives its function.

Every AWS call a handler makes (through any boto3 client: repositories, Powertools idempotency and parameters) is
checked by `local/iam.py`, the same evaluator the local runtime uses, before moto sees it; a call the function's
role does not allow fails with AccessDeniedException, as it would deployed. What each function was allowed is
recorded, so that `test_grants.py` can fail on a grant no test ever used.

Names: the functional tests create tables and secrets with their own names and pass them through the same
environment variables the template sets (`X_TABLE_NAME: {"Ref": <Table>}`). So a policy's `Ref`/`Fn::GetAtt` on a
resource resolves through the variable the function reads it from, at the time of the call.
"""

from __future__ import annotations

import contextvars
import importlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import Any

from botocore.client import BaseClient
from botocore.exceptions import ClientError

from local.cloudformation.resources import FUNCTION_TYPE, SECRET_TYPE, TABLE_TYPES
from local.cloudformation.template import ACCOUNT_ID, PARTITION, Resolver, StackTemplate, load_assembly, synth
from local.iam import Principal, denial_message, required_permissions, role_of, role_policies
from tests.support.whole_suite import RECORDER

ROOT = Path(__file__).resolve().parents[2]
REGION = "us-east-1"

_current: contextvars.ContextVar[Principal | None] = contextvars.ContextVar("iam_principal", default=None)


def synth_dev(outdir: Path) -> StackTemplate:
    """The dev stage synthesized into `outdir` as the local runtime does it (offline), and its one stack."""
    (stack,) = load_assembly(synth(ROOT, outdir, "dev", log=lambda line: None))
    return stack


class _EnvironmentNames:
    """`Ref`/`Fn::GetAtt` as the function sees them: through the environment variables the template gives it.

    `by_ref` maps a logical id of `stack` to the variable that carries its `Ref` (a table's name, a secret's ARN).
    """

    def __init__(self, stack: StackTemplate, by_ref: Mapping[str, str]) -> None:
        self._stack = stack
        self._by_ref = by_ref

    def ref(self, logical_id: str) -> Any:
        variable = self._by_ref.get(logical_id)
        value = os.environ.get(variable) if variable else None
        return value or f"unresolved-{logical_id}"

    def get_att(self, logical_id: str, attribute: str) -> Any:
        rtype = self._stack.resources[logical_id].get("Type")
        if rtype in TABLE_TYPES and attribute == "Arn":
            return f"arn:{PARTITION}:dynamodb:{REGION}:{ACCOUNT_ID}:table/{self.ref(logical_id)}"
        if rtype == SECRET_TYPE and attribute == "Id":
            return self.ref(logical_id)
        # Log groups, queues, streams: used by Lambda itself, never by the code under test.
        return f"arn:{PARTITION}:unresolved:{REGION}:{ACCOUNT_ID}:{logical_id}.{attribute}"


@dataclass
class FunctionRole:
    logical_id: str
    handler: str  # "functions.voting.api.lambda_handler"
    principal: Principal


@dataclass(frozen=True)
class _Placement:
    """Where a stack sits: its template, and the parent's stack and its AWS::CloudFormation::Stack resource."""

    stack: StackTemplate
    parent: _Placement | None = None
    resource: str = ""

    def passed(self, parameter: str) -> Any:
        """What the parent passes to one of this stack's parameters (an expression of the parent's template)."""
        assert self.parent is not None
        return self.parent.stack.resources[self.resource]["Properties"]["Parameters"][parameter]


def _placements(stack: StackTemplate, parent: _Placement | None = None, resource: str = "") -> list[_Placement]:
    here = _Placement(stack, parent, resource)
    return [here] + [p for logical_id, child in stack.nested.items() for p in _placements(child, here, logical_id)]


def _resolver(place: _Placement, variables: Mapping[str, Any]) -> Resolver:
    """A resolver of the function's stack whose names come from its environment, through every parent."""
    by_ref: dict[str, str] = {}
    passed: dict[str, str] = {}  # parameter -> variable carrying the value the parent passes
    for variable, value in variables.items():
        if isinstance(value, Mapping) and isinstance(value.get("Ref"), str):
            name = value["Ref"]
            (passed if name in place.stack.template.get("Parameters", {}) else by_ref)[name] = variable
    parameters = {}
    if place.parent is not None:
        parent_refs = {
            place.passed(p)["Ref"]: v for p, v in passed.items() if isinstance(place.passed(p), Mapping)
            and isinstance(place.passed(p).get("Ref"), str)
        }
        parent = Resolver(place.parent.stack, _EnvironmentNames(place.parent.stack, parent_refs), region=REGION)
        for name in place.stack.template.get("Parameters", {}):
            expression = place.passed(name) if name in place.parent.stack.resources[place.resource][
                "Properties"].get("Parameters", {}) else None
            parameters[name] = f"unresolved-{name}" if expression is None else parent.resolve(expression, name)
    return Resolver(place.stack, _EnvironmentNames(place.stack, by_ref), region=REGION, parameters=parameters)


def function_roles(root: StackTemplate) -> dict[str, FunctionRole]:
    """Every function of the app (its nested stacks included), by handler path, with its role's policies resolved
    at each call."""
    roles = {}
    for place in _placements(root):
        stack = place.stack
        for logical_id, resource in stack.resources_of_type(FUNCTION_TYPE).items():
            props = resource.get("Properties", {})
            role = role_of(stack, logical_id)
            if role is None:
                continue
            variables = (props.get("Environment") or {}).get("Variables") or {}

            def policies(place: _Placement = place, role: str = role, variables: Mapping[str, Any] = variables) -> list[Any]:
                return role_policies(place.stack, role, _resolver(place, variables))

            principal = Principal(
                function=logical_id,
                role_arn=f"arn:{PARTITION}:iam::{ACCOUNT_ID}:role/{role}",
                session=logical_id,
                policies=policies,
            )
            roles[str(props["Handler"])] = FunctionRole(logical_id, str(props["Handler"]), principal)
    return roles


def _authorized_api_call(original: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(original)
    def make_api_call(self: BaseClient, operation_name: str, api_params: dict[str, Any]) -> Any:
        principal = _current.get()
        if principal is not None:
            service = self.meta.service_model.service_name
            needed = required_permissions(service, operation_name, api_params, region=self.meta.region_name)
            denied = principal.first_denied(needed)
            if denied is not None:
                raise ClientError(
                    {
                        "Error": {"Code": "AccessDeniedException", "Message": denial_message(principal, denied)},
                        "ResponseMetadata": {"HTTPStatusCode": 400},
                    },
                    operation_name,
                )
            for permission in needed:
                RECORDER.called(permission.action, permission.resource)
        with SANDBOXES.outside():  # another invocation may run while this one waits on AWS
            return original(self, operation_name, api_params)

    return make_api_call


class _Sandboxes:
    """Concurrent invocations as AWS runs them, each in its own sandbox, for tests that call handlers from threads.

    In AWS each concurrent invocation has its own process; here threads share one, and Powertools keeps an
    invocation's state in the process (the event as a class attribute of its routers, the resolver's `context` with
    the matched route, its validated arguments and the cached `Request` the caller is read from): two handlers
    running at once would read each other's. So one invocation runs its Python at a time, and lets another run only
    while it waits on AWS (each boto3 call): it takes its state out of the process as it pauses (the next invocation
    starts from none, as a fresh sandbox would) and puts it back when it resumes. An invocation nested in another on
    one thread (a test's API call from inside a stream consumer) gets the same treatment. Invocations interleave at
    their AWS calls and nowhere else. A thread a handler starts itself runs outside this: it touches no Powertools
    routing state. docs/adr/0131-concurrent-invocations-as-separate-sandboxes-in-tests.md."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = threading.local()  # >0 on the thread that runs an invocation (nested ones counted)
        self.resolvers: list[Any] = []  # every domain's resolver (`enforce`), whose `context` each invocation owns

    def _held(self) -> int:
        return int(getattr(self._depth, "value", 0))

    def _take_out(self) -> tuple[Any, Any, list[tuple[Any, dict[str, Any]]]]:
        """This invocation's state, removed from the process: what a paused or an outer invocation keeps."""
        from aws_lambda_powertools.event_handler.api_gateway import BaseRouter

        state = (BaseRouter.current_event, BaseRouter.lambda_context,
                 [(resolver, dict(resolver.context)) for resolver in self.resolvers])
        for resolver in self.resolvers:
            resolver.context.clear()
        return state

    @staticmethod
    def _put_back(state: tuple[Any, Any, list[tuple[Any, dict[str, Any]]]]) -> None:
        from aws_lambda_powertools.event_handler.api_gateway import BaseRouter

        BaseRouter.current_event, BaseRouter.lambda_context, contexts = state
        for resolver, context in contexts:
            resolver.context.clear()
            resolver.context.update(context)

    @contextmanager
    def invocation(self) -> Iterator[None]:
        depth = self._held()
        outer = self._take_out() if depth else None
        if not depth:
            self._lock.acquire()
        self._depth.value = depth + 1
        try:
            yield
        finally:
            self._depth.value = depth
            if outer is not None:
                self._put_back(outer)
            if not depth:
                self._lock.release()

    @contextmanager
    def outside(self) -> Iterator[None]:
        depth = self._held()
        if not depth:
            yield
            return
        paused = self._take_out()
        self._depth.value = 0
        self._lock.release()
        try:
            yield
        finally:
            self._lock.acquire()
            self._depth.value = depth
            self._put_back(paused)


SANDBOXES = _Sandboxes()


def enforce(roles: Mapping[str, FunctionRole], monkeypatch: Any) -> None:
    """Check every AWS call against the calling handler's role, for one test.

    Each handler of the template is replaced on its module by a wrapper that runs it as its function's role, so
    tests calling `module.lambda_handler(...)` (or a client built on it) are checked; code a test calls directly
    (a repository in a setup step) runs unchecked, like an administrator.
    """
    monkeypatch.setattr(BaseClient, "_make_api_call", _authorized_api_call(BaseClient._make_api_call))
    for handler, role in roles.items():
        module_name, _, attribute = handler.rpartition(".")
        module = importlib.import_module(module_name)
        monkeypatch.setattr(module, attribute, _as_role(getattr(module, attribute), role.principal))
        resolver = getattr(module, "app", None)
        if resolver is not None and resolver not in SANDBOXES.resolvers:
            SANDBOXES.resolvers.append(resolver)


def _as_role(handler: Callable[..., Any], principal: Principal) -> Callable[..., Any]:
    @wraps(handler)
    def run(*args: Any, **kwargs: Any) -> Any:
        token = _current.set(principal)
        try:
            with SANDBOXES.invocation():
                return handler(*args, **kwargs)
        finally:
            _current.reset(token)

    return run


@contextmanager
def meanwhile() -> Iterator[None]:
    """A test's own AWS calls made while a handler runs (another client acting between two of the handler's
    requests): as the test's administrator, not the function's role, and not noted against the route being served
    (test_pattern_actions.py)."""
    token = _current.set(None)
    try:
        with RECORDER.not_serving():
            yield
    finally:
        _current.reset(token)
