"""The region a tool talks to, resolved as the CDK CLI resolves it: `AWS_REGION`, then `AWS_DEFAULT_REGION`, then
the profile's `region` (botocore alone reads `AWS_DEFAULT_REGION` and the profile, not `AWS_REGION`)."""

from __future__ import annotations

import os


def resolve_region() -> tuple[str | None, str]:
    """(region, where it came from), region None when nothing names one."""
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        if os.environ.get(variable):
            return os.environ[variable], variable
    import boto3

    profile = os.environ.get("AWS_PROFILE", "default")
    region = boto3.Session().region_name
    return (region, f"profile {profile}") if region else (None, "no AWS_REGION, AWS_DEFAULT_REGION or profile region")


def session(*, say: bool = True):  # -> boto3.Session
    """A boto3 session in the region the CDK CLI would deploy to; says on stderr which region and why."""
    import sys

    import boto3

    region, source = resolve_region()
    if say:
        print(f"region: {region or 'none'} ({source})", file=sys.stderr)
    return boto3.Session(region_name=region)
