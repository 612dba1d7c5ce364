"""The Blueprints stack: shared auth, API and code, then one nested stack per domain.

The parent holds what every domain shares: the user pool, the cursor-signing secret, the idempotency and
parked-records tables, the REST API with its authorizer, gateway responses, Deployment and Stage, and the
Powertools layer reference. Each domain (`infra/domains/<domain>.py`, built by `ApiDomain`) is a nested stack
holding its tables, functions, routes, permissions and consumers, so a domain costs the parent one resource and
CloudFormation's 500 resources per template ("CloudFormation quotas") apply per domain
(docs/adr/0036-one-nested-stack-per-domain.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from aws_cdk import CfnOutput, Duration, RemovalPolicy, Stack
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from functions.shared.cors import parse_origins
from functions.shared.schema import IDEMPOTENCY_TABLE, PARKED_TABLE
from infra.constructs.api_domain import ApiDomain, SharedInfra
from infra.constructs.api_function import SharedCode
from infra.constructs.monitoring import (
    ALARM_EMAIL_CONTEXT,
    AlarmTopic,
    StageAlarms,
    StageDashboard,
    Watched,
    watch_api,
    watch_stage,
    watch_tables,
)
from infra.constructs.nag import acknowledge
from infra.constructs.rest_api import BlueprintsApi
from infra.constructs.spec_table import SpecTable
from infra.domains import discover

# The domains, in the order they are built: each is a function that builds its `ApiDomain` (a nested stack),
# found in infra/domains/ (alphabetically, platform last).
DomainBuilder = Callable[[Construct, SharedInfra], ApiDomain]
DOMAINS: tuple[DomainBuilder, ...] = discover()

GROUPS = {
    "admin": "may write reference data",
    "vehicle": "connected vehicles: may submit runtime events",
}


@dataclass(frozen=True)
class StageConfig:
    name: str
    removal_policy: RemovalPolicy
    deletion_protection: bool
    throttling_rate_limit: int
    throttling_burst_limit: int
    # API functions may answer an admin the items their DynamoDB calls read or wrote (the model explorer): dev only
    explain_items: bool = False
    # GET /explorer exists (`-c explorer=true|false` overrides): on dev, not on prod unless asked
    explorer: bool = True

    # The ID token's lifetime (Cognito: 5 minutes to 1 day), `idTokenMinutes` in stages.toml
    id_token_minutes: int = 60

    @classmethod
    def named(cls, name: str, *, first_create: bool = False) -> StageConfig:
        """The stage's defaults. `first_create` (`-c firstCreate=true`, set by tools/deploy.py while the stack does
        not exist yet): no deletion protection, so that a failed first create can roll back (DeleteTable and
        DeleteUserPool refuse protected resources: the stack would end ROLLBACK_FAILED); the deploy's second pass
        turns it on once the stage exists (docs/adr/0114-a-first-create-that-rolls-back.md)."""
        config = cls._defaults(name)
        if first_create and config.deletion_protection:
            config = replace(config, deletion_protection=False)
        return config

    @classmethod
    def _defaults(cls, name: str) -> StageConfig:
        if name == "prod":
            # RetainExceptOnCreate: kept on a later update or delete, but a failed first create deletes what it
            # made instead of leaving orphaned tables and a user pool behind (CloudFormation's DeletionPolicy
            # attribute: https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-attribute-deletionpolicy.html)
            return cls(name, RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE, True, throttling_rate_limit=500,
                       throttling_burst_limit=1000, explorer=False)
        if name == "dev":
            return cls(name, RemovalPolicy.DESTROY, False, throttling_rate_limit=50, throttling_burst_limit=100,
                       explain_items=True)
        raise ValueError(f"unknown stage {name!r}: use -c stage=dev or -c stage=prod")


# `-c explorer=true|false`: GET /explorer on the stage or not (default: StageConfig.explorer).
EXPLORER_CONTEXT = "explorer"
# `-c corsOrigins=https://a.example,https://b.example`: the origins whose pages may call the API (default none).
CORS_CONTEXT = "corsOrigins"


def explorer_from_context(value: object, default: bool) -> bool:
    if value is None or value == "":
        return default
    text = str(value).strip().lower()
    if text not in ("true", "false"):
        raise ValueError(f"-c {EXPLORER_CONTEXT}={value!r}: use true or false")
    return text == "true"


def cors_origins_from_context(value: object) -> tuple[str, ...]:
    """The context's origins: a comma-separated string (`-c corsOrigins=…`) or a list (cdk.json)."""
    return parse_origins(",".join(value) if isinstance(value, (list, tuple)) else str(value or ""))


class BlueprintsStack(Stack):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        stage: StageConfig,
        domains: Sequence[DomainBuilder] = DOMAINS,
        **kwargs,
    ):
        super().__init__(scope, construct_id, **kwargs)
        self.user_pool = cognito.UserPool(
            self,
            "UserPool",
            self_sign_up_enabled=False,
            sign_in_aliases=cognito.SignInAliases(username=True, email=True),
            password_policy=cognito.PasswordPolicy(
                min_length=12, require_digits=True, require_lowercase=True, require_uppercase=True, require_symbols=True
            ),
            mfa=cognito.Mfa.OPTIONAL,
            mfa_second_factor=cognito.MfaSecondFactor(otp=True, sms=False),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            removal_policy=stage.removal_policy,
            deletion_protection=stage.deletion_protection,
        )
        # No hosted UI domain stands behind OAuth, so both clients turn it off: CDK's defaults would otherwise allow
        # the code and implicit flows with an example.com callback URL.
        # Both clients answer "Incorrect username or password" for a user who does not exist, as for a wrong password
        # (PreventUserExistenceErrors): a sign-in form cannot be used to find out who has an account.
        id_token = Duration.minutes(stage.id_token_minutes)
        self.user_pool_client = self.user_pool.add_client(
            "WebClient", auth_flows=cognito.AuthFlow(user_srp=True), generate_secret=False, disable_o_auth=True,
            prevent_user_existence_errors=True, id_token_validity=id_token,
        )
        # For a terminal (tools/cognito_users.py): the AWS CLI cannot do SRP, so this client allows only
        # ADMIN_USER_PASSWORD_AUTH, which needs the caller's AWS credentials (cognito-idp:AdminInitiateAuth).
        # https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-authentication-flow-methods.html
        self.cli_client = self.user_pool.add_client(
            "CliClient", auth_flows=cognito.AuthFlow(admin_user_password=True), generate_secret=False,
            disable_o_auth=True, prevent_user_existence_errors=True, id_token_validity=id_token,
        )
        for group, description in GROUPS.items():
            cognito.CfnUserPoolGroup(
                self, f"{group.title()}Group", user_pool_id=self.user_pool.user_pool_id, group_name=group,
                description=description,
            )
        self.cursor_secret = secretsmanager.Secret(
            self,
            "CursorSigningKey",
            description="HMAC key that signs list cursors",
            generate_secret_string=secretsmanager.SecretStringGenerator(password_length=64, exclude_punctuation=True),
            removal_policy=stage.removal_policy,
        )
        self.api = BlueprintsApi(
            self,
            "Api",
            stage_name=stage.name,
            user_pool=self.user_pool,
            removal_policy=stage.removal_policy,
            throttling_rate_limit=stage.throttling_rate_limit,
            throttling_burst_limit=stage.throttling_burst_limit,
            cors_origins=cors_origins_from_context(self.node.try_get_context(CORS_CONTEXT)),
        )
        # Shared by every domain's API function: Powertools idempotency records, expired by TTL.
        self.idempotency = SpecTable(
            self, IDEMPOTENCY_TABLE, removal_policy=RemovalPolicy.DESTROY, deletion_protection=False
        )
        # Shared by every stream consumer: records it can never apply, kept whole for an operator to replay
        # (functions/shared/parked.py). Operator data, so kept like the domains' tables.
        self.parked = SpecTable(
            self, PARKED_TABLE, removal_policy=stage.removal_policy, deletion_protection=stage.deletion_protection
        )
        shared = SharedInfra(
            api=self.api,
            code=SharedCode(self, "SharedCode", stage=stage.name),
            cursor_secret=self.cursor_secret,
            idempotency=self.idempotency,
            parked=self.parked,
            removal_policy=stage.removal_policy,
            deletion_protection=stage.deletion_protection,
            explain=stage.explain_items,
            explorer=explorer_from_context(self.node.try_get_context(EXPLORER_CONTEXT), stage.explorer),
            alarms=self._alarms(stage),
        )
        self.domains: dict[str, ApiDomain] = {}
        for build in domains:
            domain = build(self, shared)
            # One nested stack at a time: each adds methods and resources to the one REST API, and API Gateway's
            # control plane answers concurrent creates with 429 Too Many Requests, failing the create and often its
            # rollback (docs/adr/0115-nested-stacks-created-one-after-another.md).
            if self.domains:
                domain.stack.add_stack_dependency(list(self.domains.values())[-1].stack)
            self.domains[domain.node.id] = domain
        # The API's and the shared tables' alarms here, each domain's in its nested stack; one dashboard for all.
        watch_api(shared.alarms, self.api.rest_api)
        counted = watch_stage(shared.alarms, self)
        self.unhealthy = shared.alarms.composite(self)  # the one that pages (infra/constructs/monitoring.py)
        shared_tables = Watched(title="Shared", tables=watch_tables([self.idempotency, self.parked]))
        self.dashboard = StageDashboard(
            self, "Monitoring", api=self.api.rest_api,
            sections=[shared_tables, *(domain.watched for domain in self.domains.values())],
            alarms=[self.unhealthy, *shared.alarms.made], stage_metrics=counted,
        ).dashboard

        CfnOutput(self, "ApiUrl", value=self.api.rest_api.url)
        CfnOutput(self, "UserPoolId", value=self.user_pool.user_pool_id)
        CfnOutput(self, "UserPoolClientId", value=self.user_pool_client.user_pool_client_id)
        CfnOutput(self, "CliClientId", value=self.cli_client.user_pool_client_id)
        self._acknowledge_nag_findings()

    def _alarms(self, stage: StageConfig) -> StageAlarms:
        """Every alarm notifies the topic of `-c alarmEmail=…` (README, "Watching a stage"); without it, no topic."""
        email = self.node.try_get_context(ALARM_EMAIL_CONTEXT)
        self.alarm_topic = (
            AlarmTopic(self, "AlarmTopic", email=email, removal_policy=stage.removal_policy) if email else None
        )
        return StageAlarms(self.alarm_topic.topic if self.alarm_topic else None, stage=stage.name)

    def _acknowledge_nag_findings(self) -> None:
        """cdk-nag AwsSolutions findings we accept, each on the narrowest construct, each with its reason."""
        acknowledge(self.user_pool, "AwsSolutions-COG2",
                    "MFA is offered (TOTP) but not forced: this is a reference backend for developers; "
                    "a production deployer turns on Mfa.REQUIRED in one line.")
        acknowledge(self.user_pool, "AwsSolutions-COG8",
                    "Threat protection needs the Cognito Plus feature plan (a paid tier); left to the deployer.")
        acknowledge(self.cursor_secret, "AwsSolutions-SMG4",
                    "The secret only signs list cursors; rotating it just invalidates cursors in flight, so it "
                    "can be rotated by hand (or replaced) without a rotation Lambda.")
        acknowledge(self.api.rest_api, "AwsSolutions-APIG2",
                    "Requests are validated in each function by Powertools' OpenAPI validation, which answers 400 "
                    "naming the field; a gateway validator without models would add nothing.")
        acknowledge(self.api.rest_api.deployment_stage, "AwsSolutions-APIG3",
                    "WAF costs per web ACL and is an account-level choice; stage throttling is on.")
