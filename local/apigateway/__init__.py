"""API Gateway (REST): the API model read from the template (`restapi`), the stage's HTTP front (`gateway`), which
takes each request through one chain (route -> authorizer -> method request -> integration -> response), and the
Cognito user pool authorizer (`authorizer`). docs/local-runtime.md; docs/adr/0126-local-runtime-laid-out-by-service.md.
"""
