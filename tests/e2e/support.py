"""What the e2e tests say about answers: the body of a success, the code of an error, every page of a list."""

from __future__ import annotations


def body(reply, status: int = 200):
    assert reply.status_code == status, reply.text
    return reply.json()


def code(reply) -> tuple[int, str]:
    return reply.status_code, reply.json()["error"]["code"]


def every(api, url: str, key: str = "items", limit: int = 5, **kwargs) -> list[dict]:
    """Every item of a list, page by page through `nextCursor` (`limit` per page, to exercise the cursor)."""
    found, cursor = [], None
    while True:
        sep = "&" if "?" in url else "?"
        page = body(api.call("GET", f"{url}{sep}limit={limit}" + (f"&cursor={cursor}" if cursor else ""), **kwargs))
        found += page[key]
        if not (cursor := page["nextCursor"]):
            return found
