"""Local runtime: runs the synthesized CDK backend without Docker or an AWS account (docs/local-runtime.md), one
package per AWS service it emulates (docs/adr/0126-local-runtime-laid-out-by-service.md).
Import-free: the Lambda worker (`local.awslambda.worker`) imports this package and must stay as light as a Lambda
runtime.
"""
