"""netns_hosts.Hosts side by side: two runs on one machine (two copies of the test command, or a
long campaign beside one) each hold a subnet of their own, and neither one's clean-up touches
the other's hosts."""
from __future__ import annotations

import fcntl
import os
import subprocess

import pytest

from netns_hosts import LOCK_DIR, Hosts, namespaces_unavailable

_why_not = namespaces_unavailable()
if _why_not:
    pytest.skip(_why_not, allow_module_level=True)

PREFERRED = 90
# A prefix of this process's own: a copy of this test running beside it uses the same subnets
# (through the locks) but never sees these namespaces as its own.
PREFIX = f"bcnt{os.getpid() % 10000}-"


def namespaces(tag: str) -> list[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    return sorted(line.split()[0] for line in listed.splitlines() if line.startswith(tag))


def guard_routes(subnet: int) -> list[str]:
    shown = subprocess.run(["ip", "-4", "route", "show", "root", f"10.{subnet}.0.0/16"],
                           capture_output=True, text=True, check=True).stdout
    return [line for line in shown.splitlines() if line.startswith("unreachable")]


def locked(subnet: int) -> bool:
    """Whether some run holds the subnet's lock (a lock of another open file, as another process's)."""
    with open(os.path.join(LOCK_DIR, f"boardcast-netns-10.{subnet}.lock"), "w") as probe:
        try:
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(probe, fcntl.LOCK_UN)
        return False


def test_a_second_run_takes_another_subnet_and_leaves_the_first_ones_hosts_alone():
    with Hosts(["a", "b"], prefix=PREFIX, subnet=PREFERRED) as first:
        mine = namespaces(first.tag)
        assert len(mine) == 3, mine  # the switch and two hosts
        assert locked(first.subnet)
        with Hosts(["a", "b"], prefix=PREFIX, subnet=PREFERRED) as second:
            assert second.subnet != first.subnet
            assert second.addr("a") != first.addr("a")
            assert len(namespaces(second.tag)) == 3 and locked(second.subnet)
            assert namespaces(first.tag) == mine, "the second run's clean-up removed the first run's hosts"
            assert guard_routes(first.subnet) and guard_routes(second.subnet)
        second_subnet, second_tag = second.subnet, second.tag
        assert namespaces(second_tag) == [] and guard_routes(second_subnet) == []
        assert namespaces(first.tag) == mine, "the second run's end removed the first run's hosts"
        assert first.run("a", ["true"]).returncode == 0
        assert guard_routes(first.subnet), "the second run's end removed the first run's guard route"
    assert namespaces(first.tag) == []
