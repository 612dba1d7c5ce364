"""cdk-nag acknowledgements, each on the narrowest construct and with its reason (cdk-nag 3 API)."""

from aws_cdk import Acknowledgment, Validations
from constructs import Construct


def acknowledge(scope: Construct, rule: str, reason: str) -> None:
    Validations.of(scope).acknowledge(Acknowledgment(id=rule, reason=reason))
