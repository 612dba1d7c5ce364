"""Local runtime: runs the synthesized CDK backend without Docker or an AWS account (docs/local-runtime.md).
Import-free: the Lambda worker (`local.worker`) imports this package and must stay as light as a Lambda runtime.
"""
