"""Users over HTTP on the local runtime: the seed's questions, sign-up races on one email, an email's change."""

from __future__ import annotations

import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from seeds import users as seed

ADMIN = ("admin",)


def fresh(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def sign_up(api, user_id: str, email: str, **extra):
    return api.call("POST", "/users", user=user_id, json={"userId": user_id, "email": email, **extra})


def by_email(api, email: str):
    return api.call("GET", f"/users/by-email/{email}", user="root", groups=ADMIN)


def test_the_seeds_users_are_answered_by_id_and_by_email(api):
    for user in seed.USERS:
        expected = {"userId": user.user_id, "email": user.email, "joinDate": user.join_date.isoformat()}
        got = api.call("GET", f"/users/{user.user_id}", user=user.user_id)
        assert (got.status_code, got.json()) == (200, expected)
        found = by_email(api, user.email)
        assert (found.status_code, found.json()) == (200, expected)
    assert api.call("GET", "/users/bob", user="bob").json()["joinDate"] == "2011-11-15"
    assert by_email(api, "fred@yahoo.com").json()["userId"] == "fred"


def test_20_parallel_sign_ups_with_one_email_give_one_201_and_19_email_taken(api):
    email = f"{fresh('shared')}@example.com"
    users = [fresh(f"u{i}") for i in range(20)]

    def attempt(user_id: str):
        reply = sign_up(api, user_id, email)
        return reply.status_code, reply.json()

    with ThreadPoolExecutor(max_workers=20) as pool:
        replies = list(pool.map(attempt, users))
    assert Counter(status for status, _ in replies) == {201: 1, 409: 19}, replies
    assert {body["error"]["code"] for status, body in replies if status == 409} == {"EMAIL_TAKEN"}
    (winner,) = [body["userId"] for status, body in replies if status == 201]
    assert by_email(api, email).json()["userId"] == winner
    losers = [user for user in users if user != winner]
    assert {api.call("GET", f"/users/{user}", user=user).status_code for user in losers} == {404}


def test_a_retried_sign_up_answers_the_same_user(api):
    user_id = fresh("retry")
    first = sign_up(api, user_id, f"{user_id}@example.com", joinDate="2020-02-29")
    again = sign_up(api, user_id, f"{user_id.upper()}@Example.com")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()


def test_a_changed_email_moves_and_the_old_one_is_free(api):
    alice, carol = fresh("alice"), fresh("carol")
    old, new = f"{alice}@old.example.com", f"{alice}@new.example.com"
    assert sign_up(api, alice, old).status_code == 201
    changed = api.call("PUT", f"/users/{alice}/email", user=alice, json={"email": new})
    assert (changed.status_code, changed.json()["email"]) == (200, new)
    assert by_email(api, new).json()["userId"] == alice
    assert by_email(api, old).status_code == 404
    assert sign_up(api, carol, old).status_code == 201
    taken = api.call("PUT", f"/users/{carol}/email", user=carol, json={"email": new})
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "EMAIL_TAKEN")
    assert api.call("DELETE", f"/users/{alice}", user=alice).status_code == 204
    assert api.call("PUT", f"/users/{carol}/email", user=carol, json={"email": new}).status_code == 200
