"""A username's `sub` where no Cognito user pool assigns one: the local runtime's tokens (local/cognito.py), the
functional tests' claims and the example data's users (seeds/) all derive it here, so that a ballot the seeds cast
for alice is the one `make token USER=alice` sees as hers. Deployed, Cognito assigns each user's `sub`; no handler
calls this. Standard library only."""

from __future__ import annotations

import uuid

_SUB_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://blueprints.local/users")


def user_sub(user: str) -> str:
    """Stable per username, like a Cognito `sub` for one user of one pool."""
    return str(uuid.uuid5(_SUB_NAMESPACE, user))
