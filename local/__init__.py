"""Local runtime: runs the synthesized CDK backend here, without Docker or an AWS account.

Everything (tables, functions, routes, authorizer) is read from the synthesized CloudFormation
template, so what runs locally is what deploys. Keep this file import-free: the Lambda worker
process (`local.worker`) imports this package and must stay as light as a Lambda runtime.
"""
