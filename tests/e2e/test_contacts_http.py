"""The Contact API over HTTP on the local runtime, as a client with tokens would use it."""

from __future__ import annotations

import re
import uuid

from seeds import contacts as seed

ADMIN = ("admin",)


def streets(response) -> list[str]:
    return [item["address"]["streetAddress"] for item in response.json()["items"]]


def test_seed_questions(api):
    # Where did Bob work on 2005-01-01, and where does he live now? (any signed-in caller may read)
    worked = api.call("GET", f"/contacts/persons/{seed.BOB}/addresses?relationship=Business&on=2005-01-01")
    assert worked.status_code == 200
    assert streets(worked) == ["1850 Wazee Street"]
    lives = api.call("GET", f"/contacts/persons/{seed.BOB}/addresses?relationship=Residential&current=true")
    assert streets(lives) == ["1600 15th Street"]
    smiths = api.call("GET", "/contacts/persons?lastName=Smith").json()
    assert [p["firstName"] for p in smiths["items"]] == ["Bob"]


def test_every_answer_says_what_it_cost_in_dynamodb(api):
    # through the gateway and the local endpoint's units (DynamoDB's rules): one eventually consistent Query, one
    # small link read -> half a read unit, on the person index; a refusal before any call costs nothing
    worked = api.call("GET", f"/contacts/persons/{seed.BOB}/addresses?relationship=Business&on=2005-01-01")
    timing = worked.headers["Server-Timing"]
    assert re.match(r'ddb;dur=[\d.]+;desc="requests=\d+ items=\d+ rcu=[\d.]+ wcu=0"', timing), timing
    assert re.search(r'ddb\.[\w.-]+\.ContactPersonIndex;desc="rcu=0.5 wcu=0"', timing), timing
    refused = api.call("GET", f"/contacts/persons/{seed.BOB}/addresses?relationship=Nope")
    assert refused.status_code == 400
    assert refused.headers["Server-Timing"].startswith('ddb;dur=0.0;desc="requests=0 items=0 rcu=0 wcu=0"')


def test_no_or_bad_token_is_401_json(api):
    for token in (None, "not-a-jwt", api.token(ttl=-60), api.token() + "x"):
        reply = api.call("GET", "/contacts/persons", user=None, token=token)
        assert reply.status_code == 401, token
        assert reply.json()["error"]["code"] == "UNAUTHORIZED"


def test_non_admin_write_is_403(api):
    reply = api.call("POST", "/contacts/persons", json={"firstName": "Eve", "lastName": "Mallory"})
    assert reply.status_code == 403
    assert reply.json()["error"]["code"] == "FORBIDDEN"
    assert api.call("GET", "/contacts/persons?lastName=Mallory").json()["items"] == []


def test_malformed_json_is_400(api):
    reply = api.call("POST", "/contacts/persons", groups=ADMIN, data='{"firstName": ',
                     headers={"Content-Type": "application/json"})
    assert reply.status_code == 400
    assert reply.json()["error"]["code"] == "MALFORMED_JSON"


def test_invalid_input_names_the_field(api):
    reply = api.call("POST", f"/contacts/persons/{seed.BOB}/addresses", groups=ADMIN,
                     json={"addressId": seed.WAZEE, "relationship": "Business", "startDate": "1/1/2005"})
    assert reply.status_code == 400
    assert [d["field"] for d in reply.json()["error"]["details"]] == ["body.startDate"]


def test_unknown_route_and_unknown_item_are_404(api):
    route = api.call("GET", "/contacts/nothing-here")
    assert route.status_code == 404 and route.json()["error"]["code"] == "ROUTE_NOT_FOUND"
    item = api.call("GET", f"/contacts/items/{uuid.uuid4()}")
    assert item.status_code == 404 and item.json()["error"]["code"] == "NOT_FOUND"


def test_admin_writes_and_reads_back(api):
    name = f"Tester{uuid.uuid4().hex[:8]}"
    person = api.call("POST", "/contacts/persons", groups=ADMIN, json={"firstName": "Grace", "lastName": name})
    assert person.status_code == 201
    address = api.call("POST", "/contacts/addresses", groups=ADMIN,
                       json={"streetAddress": "1 Navy Way", "city": "Arlington", "state": "VA", "zipCode": "22202"})
    assert address.status_code == 201
    person_id, address_id = person.json()["id"], address.json()["id"]
    link = api.call("POST", f"/contacts/persons/{person_id}/addresses", groups=ADMIN,
                    json={"addressId": address_id, "relationship": "Business", "startDate": "1943-01-01"})
    assert link.status_code == 201
    ended = api.call("PATCH", f"/contacts/person-addresses/{link.json()['linkId']}", groups=ADMIN,
                     json={"endDate": "1986-08-14"})
    assert ended.status_code == 200 and ended.json()["endDate"] == "1986-08-14"
    assert streets(api.call("GET", f"/contacts/persons/{person_id}/addresses?on=1950-06-01")) == ["1 Navy Way"]
    assert api.call("GET", f"/contacts/persons/{person_id}/addresses?current=true").json()["items"] == []
    again = api.call("PATCH", f"/contacts/person-addresses/{link.json()['linkId']}", groups=ADMIN,
                     json={"endDate": "1990-01-01"})
    assert again.status_code == 409 and again.json()["error"]["code"] == "LINK_ALREADY_ENDED"
    found = api.call("GET", f"/contacts/persons?lastName={name}").json()["items"]
    assert found == [{"id": person_id, "firstName": "Grace", "lastName": name}]


def test_link_to_missing_address_is_404(api):
    reply = api.call("POST", f"/contacts/persons/{seed.BOB}/addresses", groups=ADMIN,
                     json={"addressId": str(uuid.uuid4()), "relationship": "Business", "startDate": "2020-01-01"})
    assert reply.status_code == 404 and reply.json()["error"]["code"] == "ADDRESS_NOT_FOUND"


def test_pagination_over_http(api):
    ids, cursor, cursors = [], None, []
    while True:
        reply = api.call("GET", "/contacts/persons", params={"limit": 1, **({"cursor": cursor} if cursor else {})})
        assert reply.status_code == 200
        body = reply.json()
        assert len(body["items"]) <= 1
        ids += [p["id"] for p in body["items"]]
        cursor = body["nextCursor"]
        if cursor is None:
            break
        cursors.append(cursor)
    assert {seed.BOB, seed.JOE, seed.SALLY} <= set(ids) and len(ids) == len(set(ids))
    # Well-shaped but not signed by this API (the signature's first character changed), or off the described shape:
    # one code, INVALID_CURSOR, naming the parameter.
    payload, signature = cursors[0].split(".")
    forged = f"{payload}.{'A' if signature[0] != 'A' else 'B'}{signature[1:]}"
    tampered = api.call("GET", "/contacts/persons", params={"limit": 1, "cursor": forged})
    assert tampered.status_code == 400 and tampered.json()["error"]["code"] == "INVALID_CURSOR", tampered.text
    shapeless = api.call("GET", "/contacts/persons", params={"limit": 1, "cursor": cursors[0] + "x"})
    assert shapeless.status_code == 400 and shapeless.json()["error"]["code"] == "INVALID_CURSOR", shapeless.text
    assert [d["field"] for d in shapeless.json()["error"]["details"]] == ["query.cursor"]


def test_stage_prefixed_paths_work_like_api_gateway(api, runtime):
    reply = api.call("GET", f"/{runtime.stage}/contacts/items/{seed.BOB}")
    assert reply.status_code == 200 and reply.json()["items"][0]["firstName"] == "Bob"


def test_health_and_docs_are_public(api):
    assert api.call("GET", "/health", user=None).json() == {"status": "ok"}
    # GET /, public too (README "Public routes"): where to go from here, on this stage
    links = api.call("GET", "/", user=None).json()
    assert {links[name].rsplit("/", 1)[-1] for name in ("docs", "health", "explorer")} == {"docs", "health", "explorer"}
    page = api.call("GET", "/docs", user=None)
    assert page.status_code == 200 and "swagger" in page.text.lower()
    spec = api.call("GET", "/docs?format=json", user=None).json()
    assert "/contacts/persons/{person_id}/addresses" in spec["paths"] or "/contacts/persons/{personId}/addresses" in spec["paths"]


def test_retried_create_with_idempotency_key_creates_once(api):
    name = f"Idem{uuid.uuid4().hex[:8]}"
    headers = {"Idempotency-Key": f"create-{name}"}
    first = api.call("POST", "/contacts/persons", groups=ADMIN, headers=dict(headers), json={"firstName": "Ada", "lastName": name})
    retry = api.call("POST", "/contacts/persons", groups=ADMIN, headers=dict(headers), json={"firstName": "Ada", "lastName": name})
    assert first.status_code == retry.status_code == 201 and retry.json() == first.json()
    assert len(api.call("GET", f"/contacts/persons?lastName={name}").json()["items"]) == 1
    reused = api.call("POST", "/contacts/persons", groups=ADMIN, headers=dict(headers), json={"firstName": "Bob", "lastName": name})
    assert reused.status_code == 409 and reused.json()["error"]["code"] == "IDEMPOTENCY_KEY_REUSED"
