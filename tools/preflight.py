"""`make deploy`'s first step: what a first deploy needs from the account and region, checked before CloudFormation
creates anything, so the deploy cannot fail late for it. With the caller's credentials and region (boto3's default
session: the profile and region the CDK CLI deploys with). Prints nothing when all is well; otherwise ONE line
saying what to do, and exits 1.

- The region is one where the AWS-managed Powertools layer is published
  (infra/constructs/powertools_layer_regions.json).
- The layer of the pinned Powertools version exists there: the public SSM parameter the stack resolves at deploy
  (`powertools_layer_parameter`, infra/constructs/api_function.py); a version can be missing in a region for a while.
- API Gateway's account setting names a CloudWatch role (`get_account().cloudwatchRoleArn`), which the stage's
  execution and access logging needs (https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-logging.html);
  `make deploy-account` sets it (infra/account_stack.py).
- The account's Lambda concurrency lets every function of the stage run at once: a new account's quota can be far
  below the default 1,000 ("Lambda quotas", https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html),
  and a stream consumer that cannot get an environment falls behind its stream.
"""

from __future__ import annotations

import sys

import boto3
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError

from infra.constructs.api_function import ARCHITECTURE, RUNTIME, powertools_layer_parameter, powertools_version
from infra.constructs.region import POWERTOOLS_LAYER_REGIONS


def caller_session() -> boto3.Session:
    """The region the CDK CLI deploys to: AWS_REGION first (which boto3 alone does not read), then boto3's own
    resolution (AWS_DEFAULT_REGION, the profile's region)."""
    from tools.region import session

    return session(say=False)


def problem(session: boto3.Session | None = None, functions: int = 0) -> str | None:
    """The first thing that would make the deploy fail, as one line, or None. `functions`: how many Lambda functions
    the stage's templates hold (tools/deploy.py counts them in the synthesized assembly)."""
    session = session or caller_session()
    region = session.region_name
    if not region:
        return "no AWS region: set one for your profile (aws configure set region <region>) or AWS_REGION"
    if region not in POWERTOOLS_LAYER_REGIONS:
        return (f"{region} has no AWS-managed Powertools layer: deploy to one of {', '.join(POWERTOOLS_LAYER_REGIONS)} "
                "(AWS_REGION or your profile's region)")
    parameter = powertools_layer_parameter()
    try:
        session.client("ssm").get_parameter(Name=parameter)
    except ClientError as error:
        if error.response["Error"]["Code"] != "ParameterNotFound":
            raise
        return (f"the Powertools layer {powertools_version()} ({ARCHITECTURE.name}, {RUNTIME.name}) is not published "
                f"in {region} (no {parameter}): pick another region, or another aws-lambda-powertools version in "
                "requirements.txt")
    if not session.client("apigateway").get_account().get("cloudwatchRoleArn"):
        return (f"API Gateway in {region} has no CloudWatch role for the stage's logs: run: make deploy-account "
                "(once per account and region)")
    if functions:
        limit = session.client("lambda").get_account_settings()["AccountLimit"]
        if limit["UnreservedConcurrentExecutions"] < functions:
            return (f"Lambda in {region} lets this account run {limit['UnreservedConcurrentExecutions']} function "
                    f"environments at once (a new account's reduced quota; the default is 1,000), fewer than the "
                    f"stage's {functions} functions: ask for more 'Concurrent executions' (Service Quotas, AWS Lambda)")
    return None


def main() -> int:
    try:
        line = problem()
    except NoCredentialsError:
        line = "no AWS credentials: configure a profile (aws configure, or AWS_PROFILE), then run make deploy again"
    except (ClientError, BotoCoreError) as error:
        line = f"preflight could not check the account: {error}"
    if line is None:
        return 0
    print(f"preflight: {line}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
