"""The synthesized output is reused while nothing synth reads has changed, and never once something has
(docs/adr/0071-synth-cache-keyed-on-content.md).

`synth` itself (python app.py, ~14 s) is replaced by a fake that writes a one-stack assembly and counts its calls."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from local.cloudformation import template
from local.cloudformation.template import SYNTH_CACHE_DIR, load_assembly, synth_cached, synth_context, synth_key


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("print('app')\n")
    (tmp_path / "cdk.json").write_text(json.dumps({"context": {"stage": "dev"}}))
    (tmp_path / "requirements.txt").write_text("aws-lambda-powertools==3.37.0\n")
    (tmp_path / "infra" / "domains").mkdir(parents=True)
    (tmp_path / "infra" / "domains" / "orders.py").write_text("MEMORY = 512\n")
    (tmp_path / "functions" / "orders").mkdir(parents=True)
    (tmp_path / "functions" / "orders" / "schema.py").write_text("TABLE = 'Orders'\n")
    (tmp_path / "functions" / "orders" / "api.py").write_text("def lambda_handler(event, context): ...\n")
    return tmp_path


@pytest.fixture
def synths(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, str]]:
    calls: list[tuple[Path, str]] = []

    def fake_synth(repo: Path, outdir: Path, stage: str, log, context=None) -> Path:
        calls.append((outdir, stage))
        outdir.mkdir(parents=True, exist_ok=True)
        (outdir / "App.template.json").write_text(json.dumps({"Resources": {}, "Stage": stage, "Run": len(calls)}))
        (outdir / "asset.1").mkdir()
        (outdir / "asset.1" / "api.py").write_text((repo / "functions" / "orders" / "api.py").read_text())
        (outdir / "manifest.json").write_text(json.dumps({"artifacts": {"App": {
            "type": "aws:cloudformation:stack", "properties": {"templateFile": "App.template.json"}}}}))
        return outdir

    monkeypatch.setattr(template, "synth", fake_synth)
    return calls


def start(repo: Path, name: str, stage: str = "dev", **environ: str) -> Path:
    """What Runtime.start does: a directory of this instance's own under .local, filled by synth or the cache."""
    return synth_cached(repo, repo / ".local" / f"cdk.out-{name}", stage, lambda _: None, environ=environ)


def test_nothing_changed_the_second_start_reuses_the_first_synth(repo: Path, synths: list) -> None:
    first = start(repo, "a")
    second = start(repo, "b")  # a second instance beside the first: its own directory
    assert len(synths) == 1
    assert first != second and (second / "asset.1" / "api.py").is_file()
    assert json.loads((second / "App.template.json").read_text())["Run"] == 1
    assert [stack.name for stack in load_assembly(second)] == ["App"]


def test_a_synth_leaves_its_assets_bytecode_and_a_reuse_has_it_without_compiling(
        repo: Path, synths: list, monkeypatch: pytest.MonkeyPatch) -> None:
    # the workers write no bytecode (like Lambda's read-only /var/task under PYTHONDONTWRITEBYTECODE): it is compiled
    # once, after synth, and hard-linked with the sources (docs/adr/0104-the-local-runtime-compiles-the-assets-bytecode-once.md)
    compiled_dirs: list[str] = []
    compile_dir = template.compileall.compile_dir
    monkeypatch.setattr(template.compileall, "compile_dir",
                        lambda path, **kw: compiled_dirs.append(Path(path).name) or compile_dir(path, **kw))
    first = start(repo, "a")
    (compiled,) = (first / "asset.1" / "__pycache__").glob("api.*.pyc")
    assert compiled.name == f"api.{sys.implementation.cache_tag}.pyc"
    second = start(repo, "b")
    reused = second / "asset.1" / "__pycache__" / compiled.name
    assert len(synths) == 1 and reused.read_bytes() == compiled.read_bytes()
    assert os.path.samefile(reused, compiled) and compiled_dirs == ["asset.1"]  # linked, not compiled again
    assert [stack.name for stack in load_assembly(second)] == ["App"]


def test_without_the_cache_a_synth_compiles_its_assets_too(repo: Path, synths: list) -> None:
    out = start(repo, "a", LOCAL_SYNTH_CACHE="0")
    assert len(synths) == 1 and list((out / "asset.1" / "__pycache__").glob("api.*.pyc"))
    assert not (repo / SYNTH_CACHE_DIR).exists()


@pytest.mark.parametrize("change", [
    lambda repo: (repo / "infra" / "domains" / "orders.py").write_text("MEMORY = 1024\n"),
    lambda repo: (repo / "functions" / "orders" / "schema.py").write_text("TABLE = 'Orders2'\n"),
    lambda repo: (repo / "functions" / "orders" / "api.py").write_text("def lambda_handler(e, c): return 1\n"),
    lambda repo: (repo / "functions" / "orders" / "models.py").write_text("X = 1\n"),
    lambda repo: (repo / "cdk.json").write_text(json.dumps({"context": {"stage": "dev", "@flag": True}})),
    lambda repo: (repo / "requirements.txt").write_text("aws-lambda-powertools==3.38.0\n"),
    lambda repo: (repo / "app.py").write_text("print('app 2')\n"),
], ids=["infra", "schema", "function code", "new file", "cdk.json", "requirements", "app.py"])
def test_a_changed_input_synthesizes_again(repo: Path, synths: list, change) -> None:
    start(repo, "a")
    change(repo)
    changed = start(repo, "b")
    assert len(synths) == 2
    assert json.loads((changed / "App.template.json").read_text())["Run"] == 2


def test_same_content_same_key_a_touched_file_is_not_a_change(repo: Path) -> None:
    key = synth_key(repo, "dev", {})
    path = repo / "infra" / "domains" / "orders.py"
    os.utime(path, (1, 1))
    assert synth_key(repo, "dev", {}) == key
    (repo / "functions" / "orders" / "__pycache__").mkdir()
    (repo / "functions" / "orders" / "__pycache__" / "api.cpython-311.pyc").write_bytes(b"\0")
    assert synth_key(repo, "dev", {}) == key


def test_stage_and_deploy_region_are_part_of_the_key(repo: Path, synths: list) -> None:
    start(repo, "a", "dev")
    start(repo, "b", "prod")
    start(repo, "c", "dev", CDK_DEFAULT_REGION="eu-west-1")
    start(repo, "d", "prod")
    assert [stage for _, stage in synths] == ["dev", "prod", "dev"]


def test_the_context_given_is_part_of_the_key_and_reaches_the_synth(repo: Path) -> None:
    # `-c corsOrigins=…` makes another template: it must not reuse the output of a synth without it
    plain = synth_key(repo, "dev", {})
    with_cors = synth_key(repo, "dev", {}, {"corsOrigins": "https://a.example"})
    assert plain != with_cors == synth_key(repo, "dev", {}, {"corsOrigins": "https://a.example"})
    assert synth_context(repo, "dev", {"corsOrigins": "https://a.example"})["corsOrigins"] == "https://a.example"
    assert synth_context(repo, "prod", {"stage": "dev"})["stage"] == "prod"  # the stage argument wins


def test_the_cache_can_be_turned_off(repo: Path, synths: list) -> None:
    start(repo, "a")
    start(repo, "b", LOCAL_SYNTH_CACHE="0")
    assert len(synths) == 2


def test_removing_an_instance_directory_leaves_the_cache_whole(repo: Path, synths: list) -> None:
    import shutil

    first = start(repo, "a")
    shutil.rmtree(first)  # what Runtime.stop() does
    second = start(repo, "b")
    assert len(synths) == 1 and (second / "asset.1" / "api.py").read_text().startswith("def lambda_handler")


def test_only_the_newest_entries_are_kept(repo: Path, synths: list) -> None:
    for n in range(template.SYNTH_CACHE_KEEP + 2):
        (repo / "infra" / "domains" / "orders.py").write_text(f"MEMORY = {n}\n")
        start(repo, f"i{n}")
    entries = [p for p in (repo / SYNTH_CACHE_DIR).iterdir() if not p.name.startswith(".")]
    assert len(entries) == template.SYNTH_CACHE_KEEP
