"""The kit's promises (docs/adr/0125-handlers-take-what-they-use.md): a handler takes its caller, its page and its
creations as parameters and never names the resolver; a paged route documents, validates and binds `limit` and
`cursor` as every list did; the claims are read in one place; an error code is raised in one layer of a domain."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Annotated

import pytest
from aws_lambda_powertools.event_handler.openapi.params import Path as PathParam
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.shared import auth, cursors, kit
from functions.shared.cursors import CursorCodec
from functions.shared.http import build_resolver
from functions.shared.pages import Page
from tests.support.events import claims_for, rest_event

ROOT = Path(__file__).resolve().parents[2]
DOMAIN_APIS = sorted(ROOT.glob("functions/*/api.py"))


@pytest.mark.parametrize("api", DOMAIN_APIS, ids=lambda path: path.parent.name)
def test_no_handler_names_the_resolver(api):
    tree = ast.parse(api.read_text())
    handlers = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.decorator_list]
    assert handlers
    for handler in handlers:
        names = {node.id for node in ast.walk(handler) if isinstance(node, ast.Name)}
        assert "app" not in names, f"{api.parent.name}.{handler.name} reaches for the module's resolver"
    assert "app)" not in api.read_text()


class Listed:  # a page model's shape: items, next_cursor
    def __init__(self, items, next_cursor):
        self.items, self.next_cursor = items, next_cursor

    def model_dump(self):
        return {"items": self.items, "nextCursor": self.next_cursor}


@pytest.fixture
def lists(monkeypatch):
    """A resolver with one paged route, `GET /owners/{owner}/things?colour=&limit=&cursor=`, whose items are 0..9
    (its start key `{"n": <next>}`), signing its cursors with a fixed key."""
    monkeypatch.setattr(cursors, "cursor_codec", lambda: CursorCodec(b"k" * 32))
    app = build_resolver()
    seen: dict[str, object] = {}

    @app.get("/owners/<owner>/things")
    @kit.paged
    def things(owner: Annotated[str, PathParam()], page: kit.PageRequest, caller: kit.Caller,
               colour: Annotated[str | None, Query()] = None) -> dict:
        seen.update(limit=page.limit, caller=caller.username)

        def fetch(start):
            first = int(start["n"]) if start else 0
            items = list(range(first, min(first + page.limit, 10)))
            return Page(items=items, last_key={"n": first + page.limit} if first + page.limit < 10 else None)

        return page.page(Listed, fetch).model_dump()

    def get(url: str) -> dict:
        event = rest_event("GET", url, resource="/owners/{owner}/things", claims=claims_for("alice"))
        response = app.resolve(event, None)
        return {"status": response["statusCode"], **json.loads(response["body"])}

    return app, get, seen


def test_a_paged_route_documents_limit_and_cursor_last_as_every_list_did(lists):
    app, _, _ = lists
    operation = json.loads(app.get_openapi_json_schema())["paths"]["/owners/{owner}/things"]["get"]
    parameters = [(p["name"], p["in"]) for p in operation["parameters"]]
    assert parameters == [("owner", "path"), ("colour", "query"), ("limit", "query"), ("cursor", "query")]
    limit = next(p for p in operation["parameters"] if p["name"] == "limit")["schema"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, cursors.MAX_LIMIT, cursors.DEFAULT_LIMIT)


def test_a_page_request_carries_the_validated_limit_and_the_caller_arrives_as_a_parameter(lists):
    _, get, seen = lists
    first = get("/owners/o1/things?limit=4")
    assert (first["status"], first["items"], seen) == (200, [0, 1, 2, 3], {"limit": 4, "caller": "alice"})
    assert get("/owners/o1/things?limit=0")["error"]["code"] == "VALIDATION_FAILED"
    assert get("/owners/o1/things?limt=4")["error"]["code"] == "VALIDATION_FAILED"  # an unknown parameter


def test_a_cursor_resumes_its_own_list_and_is_refused_by_another(lists):
    _, get, _ = lists
    cursor = get("/owners/o1/things?limit=4&colour=red")["nextCursor"]
    assert get(f"/owners/o1/things?limit=4&colour=red&cursor={cursor}")["items"] == [4, 5, 6, 7]
    assert get(f"/owners/o1/things?limit=9&colour=red&cursor={cursor}")["items"] == [4, 5, 6, 7, 8, 9]  # size changes
    for other in (f"/owners/o2/things?limit=4&colour=red&cursor={cursor}",
                  f"/owners/o1/things?limit=4&colour=blue&cursor={cursor}"):
        assert get(other)["error"]["code"] == "INVALID_CURSOR"


def test_a_cursor_is_bound_to_the_validated_query_too_whatever_request_path_parameters_holds(lists, monkeypatch):
    """Powertools documents `Request.path_parameters` as the matched path's parameters; that it also holds the
    validated query values is its validation's doing, not a promise. The binding is made of what `@paged` is passed
    (the handler's validated arguments), so a cursor stays bound to the query with `path_parameters` as documented."""
    from aws_lambda_powertools.event_handler.request import Request

    _, get, _ = lists
    monkeypatch.setattr(Request, "path_parameters", property(lambda request: {"owner": "o1"}))
    cursor = get("/owners/o1/things?limit=4&colour=red")["nextCursor"]
    assert get(f"/owners/o1/things?limit=4&colour=blue&cursor={cursor}")["error"]["code"] == "INVALID_CURSOR"
    assert get(f"/owners/o1/things?limit=4&colour=red&cursor={cursor}")["items"] == [4, 5, 6, 7]


def test_paged_wants_one_page_request():
    def no_page(owner: str) -> dict:
        return {}

    with pytest.raises(TypeError, match="exactly one parameter annotated PageRequest"):
        kit.paged(no_page)


def test_the_caller_is_read_from_the_claims_of_the_event():
    event = rest_event("GET", "/x", resource="/x", claims=claims_for("bob", ("admin", "ops")))
    caller = auth.signed_in(event)
    assert caller is not None and (caller.username, caller.groups) == ("bob", frozenset({"admin", "ops"}))
    assert auth.signed_in(rest_event("GET", "/x", resource="/x")) is None
    with pytest.raises(auth.UnauthorizedError):
        auth.caller_of(rest_event("GET", "/x", resource="/x"))


def test_a_service_is_built_once_from_the_settings_through_each_layer():
    built = []
    provide = kit.service(lambda repository: ("service", repository),
                          lambda tables: built.append(tables) or ("repository", tables),
                          lambda settings: "tables")
    assert provide() == ("service", ("repository", "tables")) and provide() is provide()
    provide.cache_clear()
    provide()
    assert built == ["tables", "tables"]


def _codes(node: ast.AST) -> set[str]:
    """The codes an expression names: `code="X"` keywords and `found(value, message, "X")`."""
    codes = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.keyword) and sub.arg == "code" and isinstance(sub.value, ast.Constant):
            codes.add(sub.value.value)
        if (isinstance(sub, ast.Call) and getattr(sub.func, "id", None) == "found" and len(sub.args) == 3
                and isinstance(sub.args[2], ast.Constant)):
            codes.add(sub.args[2].value)
    return codes


def _raised(module: Path, makers: dict[str, set[str]]) -> set[str]:
    """The error codes a module raises: in `raise` statements (directly, or through a function of the domain that
    makes the error) and through `found(...)`."""
    codes: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.Raise) and node.exc is not None:
            codes |= _codes(node.exc)
            if isinstance(node.exc, ast.Call):
                name = getattr(node.exc.func, "id", None) or getattr(node.exc.func, "attr", None)
                codes |= makers.get(name or "", set())
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "found":
            codes |= _codes(node)
    return codes


def _makers(domain: Path) -> dict[str, set[str]]:
    """The domain's functions that make (return, not raise) an error with a code: `_no_vote()` -> {"NO_VOTE"}."""
    makers: dict[str, set[str]] = {}
    for module in domain.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            makes = isinstance(node, ast.FunctionDef) and not any(isinstance(n, ast.Raise) for n in ast.walk(node))
            if makes and (codes := _codes(node)):
                makers[node.name] = codes
    return makers


@pytest.mark.parametrize("domain", sorted(p.parent for p in ROOT.glob("functions/*/service.py")),
                         ids=lambda path: path.name)
def test_an_error_code_is_raised_in_one_layer_of_a_domain(domain):
    """docs/architecture.md, "Errors": the repository raises what the table holds decides, the service its rules."""
    makers = _makers(domain)
    both = _raised(domain / "service.py", makers) & _raised(domain / "repository.py", makers)
    assert not both, f"{domain.name}: raised by its service and its repository: {sorted(both)}"
