"""`make smoke` against the local runtime the e2e tests share: the README's tour, one line per domain, exit 0.
Its writes use fresh ids (and clean up where the API can), so the other e2e tests see the example data unchanged."""

from __future__ import annotations

from tools import smoke


def test_the_smoke_tour_passes_every_domain_of_the_local_runtime(api, capsys):
    code = smoke.main(["--url", api.url, "--keys-dir", str(api.keys_dir)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0, "\n".join(lines)
    status = {line.split()[1]: line.split()[0] for line in lines}
    assert list(status) == smoke.domain_names()
    # every domain with a check passed it (a domain `make new-domain` just made is a `skip` until it has one)
    assert {name for name, word in status.items() if word == "ok"} == set(smoke.CHECKS) | {"platform"}
    # the example data's answers were asked for (the default without a stage), and each round trip was checked
    assert all("examples, round trip, Server-Timing, 401" in line for line in lines if line.split()[1] in smoke.CHECKS)
