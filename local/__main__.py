"""`python -m local run | token | synth | dlq | replay`: the developer's entry points (used by the Makefile).

stdout carries only what scripts read (the `ready <url>` line and an example call for `run`, the
bare token for `token`, the assembly path for `synth`, the JSON of the on-failure queues and the
parked records for `dlq`, the JSON of the replays for `replay`); every log line goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from local.auth import DEFAULT_TTL, mint_token
from local.template import TemplateError

DEFAULT_PORT = 3000
DEFAULT_AWS_PORT = 8000


def _port(variable: str, default: int) -> int:
    return int(os.environ.get(variable) or default)


def _configure_logging(verbose: bool) -> None:
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)-7s %(message)s",
        datefmt="%H:%M:%S",
    )
    for noisy in ("botocore", "boto3", "urllib3", "werkzeug"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def _example_call(runtime: object) -> str:
    from local.runtime import Runtime

    assert isinstance(runtime, Runtime) and runtime.api is not None
    routes = [
        m
        for m in runtime.api.routes()
        if m.http_method in ("GET", "ANY") and "{" not in m.resource_path and m.function
    ]
    preferred = [m for m in routes if m.resource_path == "/contacts/persons"]
    route = (preferred or routes or [None])[0]
    path = route.resource_path if route else "/"
    auth = route is None or route.authorization_type != "NONE"
    header = '-H "Authorization: Bearer $(make -s token USER=alice)" ' if auth else ""
    return f"try: curl {header}{runtime.url}{path}"


def _run(args: argparse.Namespace) -> int:
    from local.runtime import Runtime

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    runtime = Runtime.start(
        Path(args.repo) if args.repo else None,
        stage=args.stage,
        assembly=Path(args.assembly) if args.assembly else None,
        port=args.port,
        aws_port=args.aws_port,
        seed=not args.no_seed,
    )
    try:
        if runtime.url is None:
            logging.getLogger("local").error("nothing to serve (no REST API in the template)")
            return 1
        print(f"ready {runtime.url}", flush=True)
        print(_example_call(runtime), flush=True)
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        logging.getLogger("local").info("stopping")
        runtime.stop()
    return 0


def _token(args: argparse.Namespace) -> int:
    groups = [g.strip() for g in (args.groups or "").split(",") if g.strip()]
    print(mint_token(args.user, groups, args.ttl))
    return 0


def _synth(args: argparse.Namespace) -> int:
    from local.functions import PACKAGE_ROOT
    from local.runtime import stage_from_env
    from local.template import synth

    repo = Path(args.repo or PACKAGE_ROOT).resolve()
    outdir = synth(
        repo,
        repo / ".local" / "cdk.out",
        args.stage or stage_from_env(),
        logging.getLogger("local").info,
    )
    print(outdir)
    return 0


def _local_client(service: str, port: int, read_timeout: int = 60) -> object:
    """A boto3 client for the running runtime on 127.0.0.1:`port`, with its fake credentials."""
    import boto3
    from botocore.config import Config

    from local.aws import FAKE_ACCESS_KEY, FAKE_SECRET_KEY, region_from_env

    return boto3.session.Session().client(
        service,
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name=region_from_env(),
        aws_access_key_id=FAKE_ACCESS_KEY,
        aws_secret_access_key=FAKE_SECRET_KEY,
        config=Config(retries={"max_attempts": 1}, read_timeout=read_timeout),
    )


def _dlq(args: argparse.Namespace) -> int:
    """Print what the running runtime's stream mappings sent to their on-failure queues (metadata only), and the
    records the consumers parked (whole)."""
    from botocore.exceptions import EndpointConnectionError

    from local.dlq import on_failure_messages, parked_records

    try:
        messages = on_failure_messages(_local_client("sqs", args.aws_port))
        parked = parked_records(_local_client("dynamodb", args.aws_port))
    except EndpointConnectionError:
        logging.getLogger("local").error("no local runtime at http://127.0.0.1:%s (run: make run)", args.aws_port)
        return 1
    print(json.dumps({"onFailureQueues": messages, "parkedRecords": parked}, indent=2, default=str))
    return 0


def _replay(args: argparse.Namespace) -> int:
    """Ask every stream consumer that parks records (or the one named) to replay its pending ones; print the
    outcome by function. With --aws, the same calls go to AWS with your credentials and region."""
    from botocore.exceptions import EndpointConnectionError

    from local.dlq import replay

    if args.aws:
        import boto3

        client = boto3.client("lambda")
    else:
        client = _local_client("lambda", args.port, read_timeout=900)
    try:
        results, ok = replay(client, args.function, args.limit)
    except EndpointConnectionError:
        logging.getLogger("local").error("no local runtime at http://127.0.0.1:%s (run: make run)", args.port)
        return 1
    print(json.dumps(results, indent=2, default=str))
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="serve the backend on http://127.0.0.1:PORT")
    run.add_argument("--port", type=int, default=_port("PORT", DEFAULT_PORT))
    run.add_argument("--aws-port", type=int, default=_port("LOCAL_AWS_PORT", DEFAULT_AWS_PORT))
    run.add_argument("--stage", default=None, help="CDK context 'stage' (default $STAGE or dev)")
    run.add_argument("--assembly", default=None, help="use this cloud assembly, skip synth")
    run.add_argument("--repo", default=None, help=argparse.SUPPRESS)
    run.add_argument("--no-seed", action="store_true", help="do not load example data")
    run.set_defaults(handler=_run)

    token = commands.add_parser("token", help="print a local Cognito-like ID token")
    token.add_argument("--user", required=True)
    token.add_argument("--groups", default="", help="comma-separated, e.g. admin,vehicle")
    token.add_argument("--ttl", type=int, default=DEFAULT_TTL, help="seconds (default 3600)")
    token.set_defaults(handler=_token)

    synth = commands.add_parser("synth", help="synthesize into .local/cdk.out and print its path")
    synth.add_argument("--stage", default=None)
    synth.add_argument("--repo", default=None, help=argparse.SUPPRESS)
    synth.set_defaults(handler=_synth)

    dlq = commands.add_parser(
        "dlq", help="print the on-failure queues and the parked stream records of the running runtime (JSON)"
    )
    dlq.add_argument("--aws-port", type=int, default=_port("LOCAL_AWS_PORT", DEFAULT_AWS_PORT))
    dlq.set_defaults(handler=_dlq)

    replay = commands.add_parser(
        "replay", help="replay the records the stream consumers parked, through the running runtime (JSON)"
    )
    replay.add_argument("--function", default=None, help="only this consumer (name, ARN or part of its name)")
    replay.add_argument("--limit", type=int, default=100, help="records per invocation (default 100)")
    replay.add_argument("--port", type=int, default=_port("PORT", DEFAULT_PORT), help="the runtime's HTTP port")
    replay.add_argument("--aws", action="store_true", help="invoke on AWS (your credentials) instead of locally")
    replay.set_defaults(handler=_replay)

    args = parser.parse_args(argv)
    _configure_logging(args.verbose)
    try:
        return int(args.handler(args))
    except (OSError, ValueError, TemplateError) as exc:
        logging.getLogger("local").error("%s", exc)
        return 1


if __name__ == "__main__":
    sys.exit(main())
