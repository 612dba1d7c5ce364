"""`python -m local run | token | synth | dlq | replay`: the developer's entry points (used by the Makefile).
stdout carries only what scripts and people read (`ready <url>`, an example call and where to go; a token, a path,
JSON); logs go to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from local.cloudformation.template import TemplateError
from local.cognito import DEFAULT_TTL, mint_token


def _port(variable: str, default: int) -> int:
    return int(os.environ.get(variable) or default)


def _interrupt(signum: int, frame: Any) -> None:
    """SIGTERM as Ctrl-C: it interrupts whatever runs (a synth, the seeds, the wait), at once. Only the first one:
    the stop that follows must run to its end."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def _context_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r}: write KEY=VALUE")
    return key, value


def where_to_go(runtime: Any) -> list[str]:
    """What `make run` prints last, on stdout: `ready <url>` and one call to try (the lines scripts read), then where
    to go: the API's links (GET /), the explorer (where the stage has it), Swagger UI, the local DynamoDB endpoint and
    `make admin`. The route list is on stderr with `VERBOSE=1`."""
    routes = [m for m in runtime.api.routes() if m.http_method in ("GET", "ANY") and "{" not in m.resource_path]
    route = next((m for m in routes if m.resource_path == "/contacts/persons"), routes[0] if routes else None)
    auth = '-H "Authorization: Bearer $(make -s token USER=alice)" ' if route is None or \
        route.authorization_type != "NONE" else ""
    url, paths = runtime.url, {m.resource_path for m in routes}
    lines = [f"ready {url}", f"try: curl {auth}{url}{route.resource_path if route else '/'}"]
    if "/" in paths:
        lines.append(f"  API          {url}/   (its links; every other route needs a token: make token USER=alice)")
    if "/explorer" in paths:
        lines.append(f"  explorer     {url}/explorer   (the models, their access patterns, run as the seed's users)")
    if "/docs" in paths:
        lines.append(f"  Swagger UI   {url}/docs")
    lines.append(f"  DynamoDB     {runtime.aws_endpoint}   (make admin: browse and edit its tables in a browser)")
    lines.append("  routes       VERBOSE=1 make run lists them; Ctrl-C stops")
    return lines


def _run(args: argparse.Namespace) -> int:
    from local.runtime import Runtime

    signal.signal(signal.SIGTERM, _interrupt)
    try:  # `Runtime.start` stops what it started when interrupted
        runtime = Runtime.start(stage=args.stage, port=args.port, aws_port=args.aws_port, seed=not args.no_seed,
                                assembly=Path(args.assembly) if args.assembly else None,
                                context=dict(args.context or []))
    except KeyboardInterrupt:
        logging.getLogger("local").info("stopped while starting")
        return 0
    try:
        if runtime.url is None or runtime.api is None:
            logging.getLogger("local").error("nothing to serve (no REST API in the template)")
            return 1
        for line in where_to_go(runtime):
            print(line, flush=True)
        # Until Ctrl-C or SIGTERM, in waits of a second: the kernel may hand the signal to any thread, and CPython then
        # only flags it for the main thread, which runs the handler when it next runs Python; one unbounded wait left a
        # `local run` deaf to a SIGTERM for half an hour (a CI run of tests/e2e/test_cli.py).
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        logging.getLogger("local").info("stopping")
        runtime.stop()
    return 0


def _token(args: argparse.Namespace) -> int:
    print(mint_token(args.user, [g.strip() for g in (args.groups or "").split(",") if g.strip()], args.ttl))
    return 0


def _synth(args: argparse.Namespace) -> int:
    from local.awslambda.pool import PACKAGE_ROOT
    from local.cloudformation.template import synth
    from local.runtime import stage_from_env

    print(synth(PACKAGE_ROOT, PACKAGE_ROOT / ".local" / "cdk.out", args.stage or stage_from_env(),
                logging.getLogger("local").info))
    return 0


def _local_client(service: str, port: int, read_timeout: int = 60) -> Any:
    """A boto3 client for the running runtime on 127.0.0.1:`port`, with its fake credentials."""
    from local.aws import local_client, region_from_env

    return local_client(service, f"http://127.0.0.1:{port}", region_from_env(), attempts=1, read_timeout=read_timeout)


def _dlq(args: argparse.Namespace) -> int:
    """The running runtime's on-failure queues (batch metadata only) and the records its consumers parked (whole)."""
    from local.streams.destinations import on_failure_messages, parked_records

    messages = on_failure_messages(_local_client("sqs", args.aws_port))
    parked = parked_records(_local_client("dynamodb", args.aws_port))
    print(json.dumps({"onFailureQueues": messages, "parkedRecords": parked}, indent=2, default=str))
    return 0


def _replay(args: argparse.Namespace) -> int:
    """Every consumer of the running runtime that parks records (or the one named) replays its pending ones. A
    deployed stage's: `make replay STAGE=<stage>` (tools/parked.py)."""
    from local.streams.destinations import replay

    results, ok = replay(_local_client("lambda", args.port, read_timeout=900), args.function, args.limit)
    print(json.dumps(results, indent=2, default=str))
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="serve the backend on http://127.0.0.1:PORT")
    run.add_argument("--port", type=int, default=_port("PORT", 3000))
    run.add_argument("--aws-port", type=int, default=_port("LOCAL_AWS_PORT", 8000))
    run.add_argument("--stage", default=None, help="CDK context 'stage' (default $STAGE or dev)")
    run.add_argument("--assembly", default=None, help="use this cloud assembly, skip synth")
    run.add_argument("--no-seed", action="store_true", help="do not load example data")
    run.add_argument("-c", "--context", action="append", type=_context_pair, metavar="KEY=VALUE",
                     help="CDK context for the synth, as `cdk synth -c`: "
                          "corsOrigins=http://localhost:5173, explorer=false")
    run.set_defaults(handler=_run)
    token = commands.add_parser("token", help="print a local Cognito-like ID token")
    token.add_argument("--user", required=True)
    token.add_argument("--groups", default="", help="comma-separated, e.g. admin,vehicle")
    token.add_argument("--ttl", type=int, default=DEFAULT_TTL, help="seconds (default 3600)")
    token.set_defaults(handler=_token)
    synth = commands.add_parser("synth", help="synthesize into .local/cdk.out and print its path")
    synth.add_argument("--stage", default=None)
    synth.set_defaults(handler=_synth)
    dlq = commands.add_parser("dlq", help="print the on-failure queues and the parked stream records (JSON)")
    dlq.add_argument("--aws-port", type=int, default=_port("LOCAL_AWS_PORT", 8000))
    dlq.set_defaults(handler=_dlq)
    replay = commands.add_parser("replay", help="replay the records the stream consumers parked (JSON)")
    replay.add_argument("--function", default=None, help="only this consumer (name, ARN or part of its name)")
    replay.add_argument("--limit", type=int, default=100, help="records per invocation (default 100)")
    replay.add_argument("--port", type=int, default=_port("PORT", 3000), help="the runtime's HTTP port")
    replay.set_defaults(handler=_replay)
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)-7s %(message)s", datefmt="%H:%M:%S")
    for noisy in ("botocore", "boto3", "urllib3", "werkzeug"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    from botocore.exceptions import EndpointConnectionError

    try:
        return int(args.handler(args))
    except EndpointConnectionError as exc:  # dlq, replay: nothing listens there
        logging.getLogger("local").error("no local runtime at %s (run: make run)", exc.kwargs.get("endpoint_url"))
    except (OSError, ValueError, TemplateError) as exc:
        logging.getLogger("local").error("%s", exc)
    return 1


if __name__ == "__main__":
    sys.exit(main())
