"""Hosts of our own on one machine: a network namespace per host, all on one bridge in a
namespace of its own (the switch), and partitions made with nftables rules on that bridge.

Safety: test traffic never leaves the machine (the root namespace has a default route out of
it, so a packet to a test address sent from there would leave). Every address is
10.<subnet>.0.<10+i> inside namespaces this module made; while a `Hosts` is alive the root
namespace has `unreachable 10.<subnet>.0.0/16`, so a packet sent there by mistake fails at once;
clients connect from inside a host (`Hosts.connect`), never from the root namespace. IPv6 is off
in every namespace (link-local IPv6 would cross an IPv4 partition).

Every process started in a host (`Hosts.spawn`) gets SIGKILL when the thread that started it
dies (`setpriv --pdeathsig KILL`, also where the user changes), so spawn from a thread that
lives as long as the process should (the main thread); and at the start and the end every
namespace of this prefix and subnet is emptied (its pids killed) and deleted, leftovers of a
killed run included. The subnet is held under a lock while a `Hosts` lives: a second run on the
same machine (two copies of the test command side by side) takes the next free subnet instead of
cleaning up the first one's hosts.

    with Hosts(["infra", "n1", "cl"]) as hosts:
        redis = RedisHost(hosts, "infra").start()
        ...
        hosts.isolate("n1"); ...; hosts.heal()
"""
from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from e2e_server import WEB_DIR, ServerProcess

CLONE_NEWNET = 0x40000000
LOCK_DIR = "/run/lock"
SUBNETS_TRIED = 8  # from the preferred subnet up: room for copies of the suites side by side
_libc = ctypes.CDLL(None, use_errno=True)
_libc.setns.argtypes = (ctypes.c_int, ctypes.c_int)


def _run(argv: list[str], check: bool = True, input: str | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, input=input, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip()}")
    return done


def namespaces_unavailable() -> str | None:
    """None when hosts can be made here; else why not (for pytest.skip)."""
    if os.geteuid() != 0:
        return "network namespaces need root (CI runs the tests as root)"
    for tool, package in (("ip", "iproute2"), ("nft", "nftables"), ("setpriv", "util-linux")):
        if shutil.which(tool) is None:
            return f"`{tool}` is missing (apt-get install -y {package}; scripts/setup-deps test installs it)"
    probe = f"bcprobe{os.getpid()}"
    made = _run(["ip", "netns", "add", probe], check=False)
    if made.returncode != 0:
        return f"cannot make a network namespace: {made.stderr.strip()}"
    try:
        table = _run(["ip", "netns", "exec", probe, "nft", "-f", "-"], check=False,
                     input="table bridge probe {\n chain c {\n  type filter hook forward priority 0; policy accept;\n }\n}\n")
        if table.returncode != 0:
            return f"nftables bridge filtering does not work here: {table.stderr.strip()}"
    finally:
        _run(["ip", "netns", "del", probe], check=False)
    return None


def _in_namespace(namespace: str, work):
    """Runs `work()` in a short-lived thread that entered `namespace`; returns its result.

    setns(CLONE_NEWNET) moves only the calling thread, and a socket keeps the namespace it was
    made in, so sockets made here can be used from any thread afterwards."""
    outcome: dict = {}

    def body():
        try:
            fd = os.open(f"/run/netns/{namespace}", os.O_RDONLY)
            try:
                if _libc.setns(fd, CLONE_NEWNET) != 0:
                    error = ctypes.get_errno()
                    raise OSError(error, f"setns({namespace}): {os.strerror(error)}")
            finally:
                os.close(fd)
            outcome["value"] = work()
        except BaseException as error:  # noqa: BLE001 - handed back to the caller
            outcome["error"] = error

    thread = threading.Thread(target=body, name=f"netns-{namespace}", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class Hosts:
    """A switch namespace and one namespace per host; a context manager that cleans up."""

    def __init__(self, names: list[str], prefix: str = "bcp", subnet: int = 77):
        assert 1 <= subnet <= 254 - SUBNETS_TRIED and len(names) <= 200 and len(set(names)) == len(names)
        self.names = list(names)
        self.prefix, self.preferred_subnet = prefix, subnet
        self._port = {name: f"p{i}-{name}"[:15] for i, name in enumerate(names)}
        self.rules: list[str] = []
        self._guarded = False
        self._lock = None
        self._use_subnet(subnet)

    def _use_subnet(self, subnet: int) -> None:
        self.subnet = subnet
        self.tag = f"{self.prefix}{subnet}-"
        self.switch = f"{self.tag}sw"
        self._addr = {name: f"10.{subnet}.0.{10 + i}" for i, name in enumerate(self.names)}

    # -- life cycle ---------------------------------------------------------

    def _claim_subnet(self) -> None:
        """Holds a lock on a subnet of our own: the preferred one, or the next free one.

        Two copies of the test command on one machine (or a long campaign beside one) would
        otherwise share a subnet, and each one's clean-up would kill the other's hosts. The lock
        (flock, so a killed holder releases it) makes the subnet, its namespaces and its guard
        route ours until `cleanup`. A subnet with a route of the machine's own in it is skipped.
        """
        os.makedirs(LOCK_DIR, exist_ok=True)
        for subnet in range(self.preferred_subnet, self.preferred_subnet + SUBNETS_TRIED):
            lock = open(os.path.join(LOCK_DIR, f"boardcast-netns-10.{subnet}.lock"), "w")
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.close()
                continue
            foreign = [line for line in _run(["ip", "-4", "route", "show", "root", f"10.{subnet}.0.0/16"],
                                             check=False).stdout.splitlines()
                       if line.strip() and not line.startswith("unreachable ")]
            if foreign:
                lock.close()
                continue
            self._lock = lock
            self._use_subnet(subnet)
            return
        raise RuntimeError(f"no free subnet among 10.{self.preferred_subnet}-"
                           f"{self.preferred_subnet + SUBNETS_TRIED - 1}.0.0/16: other runs hold them all")

    def __enter__(self) -> "Hosts":
        self._claim_subnet()
        self.cleanup()
        try:
            self._make()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.cleanup()
        if self._lock is not None:
            self._lock.close()  # the subnet is free for the next run
            self._lock = None

    def namespace(self, name: str) -> str:
        assert name in self._addr, f"no host {name!r} (hosts: {self.names})"
        return f"{self.tag}{name}"

    def _make(self) -> None:
        _run(["ip", "route", "replace", "unreachable", self.guarded_net])
        self._guarded = True
        sw = self.switch
        _run(["ip", "netns", "add", sw])
        _run(["ip", "-n", sw, "link", "set", "lo", "up"])
        _run(["ip", "-n", sw, "link", "add", "br0", "type", "bridge"])
        _run(["ip", "-n", sw, "link", "set", "br0", "up"])
        _run(["ip", "netns", "exec", sw, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"])
        for name in self.names:
            ns, port = self.namespace(name), self._port[name]
            _run(["ip", "netns", "add", ns])
            _run(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"])
            _run(["ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", port, "netns", sw])
            _run(["ip", "-n", sw, "link", "set", port, "master", "br0", "up"])
            _run(["ip", "-n", ns, "addr", "add", f"{self._addr[name]}/24", "dev", "eth0"])
            _run(["ip", "-n", ns, "link", "set", "eth0", "up"])
            _run(["ip", "-n", ns, "link", "set", "lo", "up"])
        self.faults([])

    @property
    def guarded_net(self) -> str:
        return f"10.{self.subnet}.0.0/16"

    def cleanup(self) -> None:
        """Kills every process in, and deletes, every namespace of this prefix and subnet."""
        listed = _run(["ip", "netns", "list"], check=False).stdout.split("\n")
        mine = [line.split()[0] for line in listed if line.strip() and line.split()[0].startswith(self.tag)]
        for ns in mine:
            pids = _run(["ip", "netns", "pids", ns], check=False).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
        for ns in mine:
            for _ in range(50):
                if _run(["ip", "netns", "del", ns], check=False).returncode == 0:
                    break
                time.sleep(0.05)
        # The guard route goes with the last user of this subnet (ours, or a killed run's).
        _run(["ip", "route", "del", "unreachable", self.guarded_net], check=False)
        self._guarded = False

    # -- addresses and processes --------------------------------------------

    def addr(self, name: str) -> str:
        self.namespace(name)
        return self._addr[name]

    def spawn(self, name: str, argv: list[str], user: str | None = None, **popen_kwargs) -> subprocess.Popen:
        """Runs `argv` inside host `name` (as `user` if given), killed if this thread dies."""
        assert threading.current_thread() is threading.main_thread(), \
            "spawn from the main thread: the parent-death signal fires when the spawning thread ends"
        setpriv = ["setpriv", "--pdeathsig", "KILL"]
        if user is not None:
            setpriv += [f"--reuid={user}", f"--regid={user}", "--init-groups"]
        return subprocess.Popen(["ip", "netns", "exec", self.namespace(name), *setpriv, "--", *argv], **popen_kwargs)

    def run(self, name: str, argv: list[str], user: str | None = None, timeout: float = 30.0,
            check: bool = True) -> subprocess.CompletedProcess:
        """Runs a short command inside host `name` and waits for it."""
        setpriv = ["setpriv", "--pdeathsig", "KILL"]
        if user is not None:
            setpriv += [f"--reuid={user}", f"--regid={user}", "--init-groups"]
        done = subprocess.run(["ip", "netns", "exec", self.namespace(name), *setpriv, "--", *argv],
                              capture_output=True, text=True, timeout=timeout)
        if check and done.returncode != 0:
            raise RuntimeError(f"{argv} in {name} exited {done.returncode}: {done.stderr.strip()}")
        return done

    def connect(self, from_host: str, to_host: str, port: int, timeout: float = 5.0) -> socket.socket:
        """A connected TCP socket made inside `from_host`'s namespace (blocking mode)."""
        ns, address = self.namespace(from_host), (self.addr(to_host), port)

        def make() -> socket.socket:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(address)
                sock.settimeout(None)
                return sock
            except BaseException:
                sock.close()
                raise

        return _in_namespace(ns, make)

    def http_get(self, from_host: str, to_host: str, port: int, path: str, timeout: float = 5.0) -> tuple[int, str]:
        """A plain HTTP/1.0 GET from inside `from_host`: (status, body)."""
        sock = self.connect(from_host, to_host, port, timeout)
        with sock:
            sock.settimeout(timeout)
            sock.sendall(f"GET {path} HTTP/1.0\r\nHost: {self.addr(to_host)}\r\n\r\n".encode())
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        return int(head.split(b" ", 2)[1]), body.decode("utf-8", "replace")

    # -- faults ---------------------------------------------------------------

    def port(self, name: str) -> str:
        """The switch port (interface name in the switch namespace) of host `name`."""
        self.namespace(name)
        return self._port[name]

    def rules_isolate(self, name: str) -> list[str]:
        port = self.port(name)
        return [f'iifname "{port}" ether type ip drop', f'oifname "{port}" ether type ip drop']

    def rules_cut(self, a: str, b: str, one_way: bool = False) -> list[str]:
        rules = [f"ip saddr {self.addr(a)} ip daddr {self.addr(b)} drop"]
        if not one_way:
            rules.append(f"ip saddr {self.addr(b)} ip daddr {self.addr(a)} drop")
        return rules

    def rules_cut_port(self, a: str, b: str, port: int, one_way: bool = False) -> list[str]:
        """a's TCP packets to b:port dropped, and (unless one way) b:port's to a: a cut from one
        service of a host that runs several (Redis and PostgreSQL on `infra`)."""
        rules = [f"ip saddr {self.addr(a)} ip daddr {self.addr(b)} tcp dport {port} drop"]
        if not one_way:
            rules.append(f"ip saddr {self.addr(b)} ip daddr {self.addr(a)} tcp sport {port} drop")
        return rules

    def rules_lossy(self, name: str, percent: int = 30) -> list[str]:
        assert 0 <= percent <= 100
        port = self.port(name)
        return [f'iifname "{port}" ether type ip numgen random mod 100 < {percent} drop',
                f'oifname "{port}" ether type ip numgen random mod 100 < {percent} drop']

    def faults(self, rules: list[str]) -> None:
        """Replaces the whole fault rule set in one nft transaction (all or nothing)."""
        body = "".join(f"  {rule}\n" for rule in rules)
        script = ("table bridge fault {}\ndelete table bridge fault\n"
                  "table bridge fault {\n chain part {\n  type filter hook forward priority 0; policy accept;\n"
                  f"{body} }}\n}}\n")
        done = subprocess.run(["ip", "netns", "exec", self.switch, "nft", "-f", "-"], input=script,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"nft refused the rule set {rules}: {done.stderr.strip()}")
        self.rules = list(rules)

    def heal(self) -> None:
        self.faults([])

    def isolate(self, name: str) -> None:
        self.faults(self.rules + self.rules_isolate(name))

    def cut(self, a: str, b: str, one_way: bool = False) -> None:
        self.faults(self.rules + self.rules_cut(a, b, one_way))

    def cut_port(self, a: str, b: str, port: int, one_way: bool = False) -> None:
        self.faults(self.rules + self.rules_cut_port(a, b, port, one_way))

    def lossy(self, name: str, percent: int = 30) -> None:
        self.faults(self.rules + self.rules_lossy(name, percent))


def _wait_for(what: str, check, timeout: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what}: the process exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not ready within {timeout}s")
        time.sleep(0.05)


def _can_connect(hosts: Hosts, from_host: str, to_host: str, port: int) -> bool:
    try:
        hosts.connect(from_host, to_host, port, timeout=0.5).close()
        return True
    except OSError:
        return False


class RedisHost:
    """redis-server inside a host, on its address, port 6379, nothing persisted."""

    def __init__(self, hosts: Hosts, host: str = "infra", port: int = 6379):
        self.hosts, self.host, self.port = hosts, host, port
        self.proc: subprocess.Popen | None = None

    def start(self) -> "RedisHost":
        self.proc = self.hosts.spawn(self.host, [
            "redis-server", "--bind", self.hosts.addr(self.host), "--protected-mode", "no", "--save", "",
            "--appendonly", "no", "--port", str(self.port), "--daemonize", "no"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_for("redis-server", lambda: _can_connect(self.hosts, self.host, self.host, self.port), 10, self.proc)
        return self

    @property
    def url(self) -> str:
        return f"redis://{self.hosts.addr(self.host)}:{self.port}"

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


class PostgresHost:
    """PostgreSQL (the newest installed) inside a host: TCP only on the host's address (unix
    sockets ignore namespaces), `trust` for the hosts' /24, run as the `postgres` user."""

    def __init__(self, hosts: Hosts, host: str = "infra", port: int = 5432):
        from e2e_postgres import _bin
        self._bin = _bin
        self.hosts, self.host, self.port = hosts, host, port
        self.root = tempfile.mkdtemp(prefix="boardcast-netns-pg-")
        os.chmod(self.root, 0o755)
        shutil.chown(self.root, "postgres", "postgres")
        self.data = os.path.join(self.root, "data")
        self.proc: subprocess.Popen | None = None
        self._databases = 0

    def start(self) -> "PostgresHost":
        if not os.path.exists(self.data):
            self.hosts.run(self.host, [self._bin("initdb"), "-D", self.data, "-A", "trust", "-U", "postgres",
                                       "--no-sync", "-E", "UTF8"], user="postgres", timeout=120)
            with open(os.path.join(self.data, "pg_hba.conf"), "a") as hba:
                hba.write(f"host all all 10.{self.hosts.subnet}.0.0/24 trust\n")
        self.proc = self.hosts.spawn(self.host, [
            self._bin("postgres"), "-D", self.data, "-p", str(self.port),
            "-c", f"listen_addresses={self.hosts.addr(self.host)}", "-c", f"unix_socket_directories={self.root}",
            "-c", "max_connections=200", "-c", "fsync=off"],
            user="postgres", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def ready() -> bool:
            return self.hosts.run(self.host, [self._bin("pg_isready"), "-q", "-h", self.hosts.addr(self.host),
                                              "-p", str(self.port)], check=False).returncode == 0
        _wait_for("postgres", ready, 30, self.proc)
        return self

    def create_database(self) -> str:
        """A fresh database: its `--store` URL."""
        self._databases += 1
        name = f"boardcast{self._databases}"
        self.hosts.run(self.host, [self._bin("createdb"), "-h", self.hosts.addr(self.host), "-p", str(self.port),
                                   "-U", "postgres", name])
        return f"postgresql://postgres@{self.hosts.addr(self.host)}:{self.port}/{name}"

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()  # setpriv execs postgres: this is the postmaster; its backends follow
            self.proc.wait(timeout=10)
        self.proc = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


class NodeProcess(ServerProcess):
    """A Boardcast node inside a host, on its address; restart, kill -9, SIGSTOP and SIGCONT;
    its output (every run's) is kept for failure messages (`output()`)."""

    def __init__(self, hosts: Hosts, host: str, node: str, data, redis: str | None = None,
                 store: str | None = None, lease: float = 3, port: int = 8080, extra_args: tuple[str, ...] = ()):
        cluster: list[str] = ["--node", node, "--lease", str(lease)]
        if redis:
            cluster += ["--redis", redis]
        if store:
            cluster += ["--store", store]
        super().__init__(data=data, web=WEB_DIR, extra_args=(*cluster, *extra_args))
        self.args[self.args.index("--host") + 1] = hosts.addr(host)
        self.args[self.args.index("--port") + 1] = str(port)
        self.hosts, self.host_name, self.node = hosts, host, node
        self.host = hosts.addr(host)

    def _popen(self) -> subprocess.Popen:
        marker = f"=== {self.node}: started {time.strftime('%H:%M:%S')} ===\n"
        self.stdout_lines.append(marker)
        self.stderr_lines.append(marker)
        return self.hosts.spawn(self.host_name, self.args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)

    def restart(self, timeout: float = 30.0) -> "NodeProcess":
        if self.running:
            self.terminate()
        return self.start(timeout)

    def stop(self) -> None:
        """SIGSTOP: frozen (the kernel still completes TCP handshakes; nothing answers)."""
        assert self.running
        os.kill(self.proc.pid, signal.SIGSTOP)

    def cont(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def ws_url(self, path: str = "/ws") -> str:
        return self.ws(path)


async def connect_client(hosts: Hosts, from_host: str, node: NodeProcess, name: str = "", timeout: float = 5.0):
    """An e2e_client.Client whose TCP connection was made inside `from_host`, to `node`."""
    import asyncio

    from websockets.asyncio.client import connect

    from e2e_client import Client
    sock = await asyncio.to_thread(hosts.connect, from_host, node.host_name, node.port, timeout)
    try:
        ws = await connect(node.ws(), sock=sock, compression="deflate", proxy=None, open_timeout=timeout,
                           ping_interval=None, close_timeout=3, max_size=4 * 1024 * 1024, max_queue=None)
    except BaseException:
        sock.close()
        raise
    return Client(ws, name)
