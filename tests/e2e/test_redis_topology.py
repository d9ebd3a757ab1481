"""The split topology on a real redis-server: match service replicas and bot
workers as separate ``meeple`` processes, clients over real gRPC. Every
test ends by checking the final records: each match complete, every ply
applied exactly once (its event stream and its record agree, and the record
replays to the end), and every action a client saw acknowledged is there.

Players are real identities: guests signed in on a ``meeple serve auth``
process of the same Redis (as the clients' entry signs them in), whose
tokens every match replica accepts; each human client plays as a player
of its own."""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

from services.convert import action_to_proto, replay
from services.coordination.redis_jobs import GROUP
from services.coordination.shards import data_key, events_key, jobs_key, shard_of
from tests.e2e.processes import MANY_SIGN_INS, MEEPLE, Meeple, auth_server
from tests.identities import bearer, sign_in, signed_in_channel
from tests.redis_servers import REDIS_CLI, RedisCluster, RedisServer

pytestmark = pytest.mark.slow

GAMES = [
    (pb.GAME_KIND_OTHELLO, 2),
    (pb.GAME_KIND_ROLIT, 4),
    (pb.GAME_KIND_VOLLEYBALL, 2),
    (pb.GAME_KIND_VOLTA, 2),
]
HUMAN = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
TOKEN = "meeple-seat-token"


def bot(spec: str = "random") -> ms.SeatConfig:
    return ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=spec)


class Topology:
    """Match replicas and workers on one Redis, and an auth process that
    signs players in (``sign_in``); stubs to each replica, whose calls act
    as one player (``player``, signed in on first use) unless they carry a
    token of their own."""

    def __init__(self, stack: ExitStack, url: str, env: dict[str, str] | None = None) -> None:
        self.stack = stack
        self.url = url
        self.env = {"MEEPLE_LOG_LEVEL": "WARNING", **(env or {})}
        self.replicas: list[Meeple] = []
        self.workers: list[Meeple] = []
        self.auth: Meeple | None = None
        self._auth_channel: grpc.Channel | None = None
        self._player = ""

    def _start(self, *args: str) -> Meeple:
        process = Meeple(*args, "--metrics-port", "0", "--redis", self.url, env=self.env)
        self.stack.callback(process.kill)
        return process

    def start(self, replicas: int, workers: int) -> Topology:
        if self.auth is None:
            self.auth = auth_server(self.url, self.env)
            self.stack.callback(self.auth.kill)
        self.replicas += [self._start("serve", "match", "--port", "0") for _ in range(replicas)]
        self.workers += [self._start("worker") for _ in range(workers)]
        return self

    @property
    def processes(self) -> list[Meeple]:
        """Every process of the topology."""
        return [*([self.auth] if self.auth else []), *self.replicas, *self.workers]

    def sign_in(self, name: str = "player") -> str:
        """The access token of a new guest, signed in on the auth process."""
        assert self.auth is not None, "start() the topology first"
        if self._auth_channel is None:
            self._auth_channel = grpc.insecure_channel(self.auth.address)
            self.stack.callback(self._auth_channel.close)
        return sign_in(self._auth_channel, name)

    @property
    def player(self) -> str:
        """The token of the player the stubs' calls act as by default."""
        if not self._player:
            self._player = self.sign_in("creator")
        return self._player

    def stub(self, index: int) -> ms_grpc.MatchServiceStub:
        channel = grpc.insecure_channel(self.replicas[index].address)
        self.stack.callback(channel.close)
        return ms_grpc.MatchServiceStub(signed_in_channel(channel, lambda: self.player))


@pytest.fixture
def topology(redis_server: RedisServer) -> Iterator[Callable[..., Topology]]:
    redis_server.flush()
    with ExitStack() as stack:
        yield lambda url=None, env=None: Topology(stack, url or redis_server.url, env)


def create_bot_matches(stubs: list[ms_grpc.MatchServiceStub], count: int) -> list[str]:
    ids = []
    for index in range(count):
        kind, seats = GAMES[index % len(GAMES)]
        request = ms.CreateMatchRequest(config=pb.GameConfig(kind=kind), seats=[bot()] * seats)
        ids.append(stubs[index % len(stubs)].CreateMatch(request).match.match_id)
    return ids


def await_finished(
    stubs: list[ms_grpc.MatchServiceStub], ids: list[str], seconds: float
) -> dict[str, ms.GetMatchResponse]:
    """Polls until every match is finished; fails with how many are left."""
    finished: dict[str, ms.GetMatchResponse] = {}
    deadline = time.monotonic() + seconds
    while len(finished) < len(ids):
        for match_id in ids:
            if match_id in finished:
                continue
            got = call(stubs, lambda s, i=match_id: s.GetMatch(ms.GetMatchRequest(match_id=i)))
            if got.match.status == ms.MATCH_STATUS_FINISHED:
                finished[match_id] = got
        if time.monotonic() > deadline:
            left = [i for i in ids if i not in finished]
            where = []
            for match_id in left[:5]:
                got = call(stubs, lambda s, i=match_id: s.GetMatch(ms.GetMatchRequest(match_id=i)))
                view = got.match.view  # type: ignore[attr-defined]
                where.append(f"{match_id}: ply {view.ply}, seat {view.seat_to_act} to act")
            raise AssertionError(
                f"{len(left)} of {len(ids)} matches unfinished after {seconds} s: {where}"
            )
        time.sleep(0.2)
    return finished


def check_records(stubs: list[ms_grpc.MatchServiceStub], final: dict[str, ms.GetMatchResponse]):
    """Each record replays to its end, and its event stream holds each of
    its plies once, in order, then the end."""
    for match_id, got in final.items():
        state = replay(got.record)
        assert state.is_terminal() or got.match.ended.reason != ms.END_REASON_RULES, match_id
        stream = stubs[-1].WatchMatch(ms.WatchMatchRequest(match_id=match_id), timeout=10)
        events = list(stream)
        actions = [e for e in events if e.HasField("action")]
        assert [e.ply for e in actions] == list(range(len(got.record.history))), match_id
        assert [e.action.action.action for e in actions] == list(got.record.history), match_id
        assert events[-1].HasField("ended"), match_id


def call(
    stubs: list[ms_grpc.MatchServiceStub],
    rpc: Callable[[ms_grpc.MatchServiceStub], object],
    seconds: float = 30.0,
) -> object:
    """``rpc`` on the first replica that answers: a replica that is down or
    cannot reach Redis (UNAVAILABLE) is retried, then the next is tried."""
    deadline = time.monotonic() + seconds
    attempt = 0
    while True:
        stub = stubs[attempt % len(stubs)]
        try:
            return rpc(stub)
        except grpc.RpcError as error:
            if error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise
            if time.monotonic() > deadline:
                raise
        attempt += 1
        time.sleep(min(1.0, 0.05 * 2 ** min(attempt, 5)))


class HumanClient(threading.Thread):
    """Plays a human seat to the end with random legal moves, failing over
    between replicas; records every submission it saw acknowledged. It is
    the player of ``player_token`` (an access token), who joins seat 0."""

    def __init__(
        self, stubs: list[ms_grpc.MatchServiceStub], match_id: str, seed: int, player_token: str
    ) -> None:
        super().__init__(daemon=True)
        self.stubs = stubs
        self.match_id = match_id
        self.rng = random.Random(seed)
        self.acknowledged: list[tuple[int, bytes]] = []
        self.error: BaseException | None = None
        join = ms.JoinMatchRequest(match_id=match_id, seat=0)
        # A retry after a lost answer gets the player's seat (and token) again.
        joined = call(stubs, lambda s: s.JoinMatch(join, metadata=bearer(player_token)))
        self.token = joined.seat_token  # type: ignore[attr-defined]

    def run(self) -> None:
        try:
            self.play()
        except BaseException as error:
            self.error = error

    def play(self) -> None:
        request = ms.GetMatchRequest(match_id=self.match_id)
        while True:
            got = call(self.stubs, lambda s: s.GetMatch(request))
            match = got.match  # type: ignore[attr-defined]
            if match.status == ms.MATCH_STATUS_FINISHED:
                return
            if not (match.view.HasField("seat_to_act") and match.view.seat_to_act == 0):
                time.sleep(0.01)
                continue
            state = replay(got.record)  # type: ignore[attr-defined]
            action = action_to_proto(state, self.rng.choice(state.legal_actions())).action
            submit = ms.SubmitActionRequest(
                match_id=self.match_id, expected_ply=match.view.ply, actions=[action]
            )
            try:
                call(
                    self.stubs,
                    lambda s, r=submit: s.SubmitAction(r, metadata=[(TOKEN, self.token)]),
                )
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.ABORTED:
                    raise
                continue  # not acknowledged: read the match again
            self.acknowledged.append((match.view.ply, action.SerializeToString()))


def check_acknowledged(clients: list[HumanClient], final: dict[str, ms.GetMatchResponse]) -> None:
    for client in clients:
        assert client.error is None, repr(client.error)
        history = final[client.match_id].record.history
        for ply, action in client.acknowledged:
            assert history[ply].SerializeToString() == action, (client.match_id, ply)


def test_two_replicas_and_three_workers_play_200_matches(
    topology: Callable[..., Topology],
) -> None:
    world = topology().start(replicas=2, workers=3)
    stubs = [world.stub(0), world.stub(1)]
    ids = create_bot_matches(stubs, 200)
    final = await_finished(stubs, ids, seconds=300)
    check_records(stubs, final)
    kinds = {final[i].match.config.kind for i in ids}
    assert kinds == {kind for kind, _ in GAMES}


def test_a_redis_cluster_plays_matches_through_both_replicas(
    redis_cluster: RedisCluster, topology: Callable[..., Topology]
) -> None:
    redis_cluster.flush()
    world = topology(redis_cluster.url).start(replicas=2, workers=2)
    stubs = [world.stub(0), world.stub(1)]
    ids = create_bot_matches(stubs, 40)
    final = await_finished(stubs, ids, seconds=300)
    check_records(stubs, final)
    # The keys of a match share its shard's hash tag: each match's data,
    # events and job stream live in one slot.
    assert REDIS_CLI is not None
    for match_id in ids[:5]:
        slots = {
            subprocess.run(
                [REDIS_CLI, "-p", str(redis_cluster.nodes[0].port), "cluster", "keyslot", key],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            for key in (data_key(match_id), events_key(match_id), jobs_key(shard_of(match_id)))
        }
        assert len(slots) == 1


def pending_consumers(url_port: int, match_id: str) -> list[str]:
    """The consumers holding jobs of the match's shard."""
    assert REDIS_CLI is not None
    stream = jobs_key(shard_of(match_id))
    out = subprocess.run(
        [REDIS_CLI, "-p", str(url_port), "xpending", stream, GROUP, "-", "+", "10"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return out[1::4]  # id, consumer, idle, deliveries


def human_vs_bot(stub: ms_grpc.MatchServiceStub, spec: str = "random") -> str:
    config = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
    request = ms.CreateMatchRequest(config=config, seats=[HUMAN, bot(spec)])
    return str(stub.CreateMatch(request).match.match_id)


def test_a_worker_killed_mid_job_loses_no_bot_turn(
    redis_server: RedisServer, topology: Callable[..., Topology]
) -> None:
    """The worker holding a bot turn is killed with -9 while it thinks; after
    the visibility timeout the other worker takes the turn over."""
    world = topology(env={"MEEPLE_BOT_VISIBILITY_TIMEOUT": "2"}).start(replicas=1, workers=2)
    stubs = [world.stub(0)]
    match_id = human_vs_bot(stubs[0], "mcts:time=0.3")
    client = HumanClient(stubs, match_id, seed=1, player_token=world.sign_in("human"))
    client.start()
    victim = None
    deadline = time.monotonic() + 30
    while victim is None and time.monotonic() < deadline:
        for consumer in pending_consumers(redis_server.port, match_id):
            pid = int(consumer.split("-")[-2])
            victim = next((w for w in world.workers if w.pid == pid), None)
        time.sleep(0.02)
    assert victim is not None, "no worker took a job"
    victim.kill()
    client.join(timeout=120)
    final = await_finished(stubs, [match_id], seconds=60)
    check_records(stubs, final)
    check_acknowledged([client], final)


STALL_SECONDS = 10.0  # the most a killed worker's bot turn may wait, with the default settings


def bot_turn_held(
    stub: ms_grpc.MatchServiceStub, world: Topology, redis_port: int, match_id: str
) -> tuple[Meeple, int]:
    """Plays the human seat's first move if it is to act, then waits until
    a worker holds the bot's turn: that worker, and the turn's ply."""
    token = stub.JoinMatch(ms.JoinMatchRequest(match_id=match_id, seat=0)).seat_token
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        got = stub.GetMatch(ms.GetMatchRequest(match_id=match_id))
        view = got.match.view
        if view.HasField("seat_to_act") and view.seat_to_act == 0:
            state = replay(got.record)
            action = action_to_proto(state, state.legal_actions()[0]).action
            submit = ms.SubmitActionRequest(
                match_id=match_id, expected_ply=view.ply, actions=[action]
            )
            stub.SubmitAction(submit, metadata=[(TOKEN, token)])
            continue
        if view.HasField("seat_to_act"):  # the bot's turn: who holds it?
            for consumer in pending_consumers(redis_port, match_id):
                pid = int(consumer.split("-")[-2])
                holder = next((w for w in world.workers if w.pid == pid), None)
                if holder is not None:
                    return holder, view.ply
        time.sleep(0.01)
    raise AssertionError("no worker took the bot's turn")


def test_a_killed_workers_bot_turn_is_played_within_seconds(
    redis_server: RedisServer, topology: Callable[..., Topology]
) -> None:
    """With the default settings: the worker thinking about a bot's turn (a
    2 s search) is killed with -9; the other worker plays the turn within
    STALL_SECONDS of the kill (the dead worker's lease lapses, however long
    MEEPLE_BOT_VISIBILITY_TIMEOUT is)."""
    world = topology().start(replicas=1, workers=2)
    stub = world.stub(0)
    match_id = human_vs_bot(stub, "mcts:time=2")
    victim, ply = bot_turn_held(stub, world, redis_server.port, match_id)
    victim.kill()
    killed = time.monotonic()
    request = ms.GetMatchRequest(match_id=match_id)
    while stub.GetMatch(request).match.view.ply == ply:
        stall = time.monotonic() - killed
        assert stall < STALL_SECONDS, f"the bot's turn still waits {stall:.1f} s after the kill"
        time.sleep(0.05)
    print(f"the bot's turn was played {time.monotonic() - killed:.2f} s after the kill")
    [survivor] = [w for w in world.workers if w is not victim]
    assert survivor.process.poll() is None


def test_a_replica_killed_while_clients_play_loses_and_doubles_nothing(
    topology: Callable[..., Topology],
) -> None:
    world = topology().start(replicas=2, workers=1)
    stubs = [world.stub(0), world.stub(1)]
    ids = [human_vs_bot(stubs[0]) for _ in range(6)]
    clients = [
        HumanClient(stubs, match_id, seed, world.sign_in(f"human {seed}"))
        for seed, match_id in enumerate(ids)
    ]
    for client in clients:
        client.start()
    time.sleep(1.0)
    world.replicas[0].kill()  # the replica every client talks to first
    for client in clients:
        client.join(timeout=240)
        assert client.error is None, f"{client.match_id}: {client.error!r}"
    final = await_finished(stubs[1:], ids, seconds=60)
    check_records(stubs[1:], final)
    check_acknowledged(clients, final)
    assert all(client.acknowledged for client in clients)


def test_a_redis_restart_loses_no_acknowledged_action(
    tmp_path: Path, topology: Callable[..., Topology]
) -> None:
    redis = RedisServer(tmp_path / "aof", appendonly=True)
    try:
        world = topology(redis.url).start(replicas=1, workers=2)
        stubs = [world.stub(0)]
        ids = [human_vs_bot(stubs[0]) for _ in range(4)]
        ids += create_bot_matches(stubs, 8)
        clients = [
            HumanClient(stubs, match_id, seed, world.sign_in(f"human {seed}"))
            for seed, match_id in enumerate(ids[:4])
        ]
        for client in clients:
            client.start()
        time.sleep(1.0)
        redis.stop()  # SIGTERM: it writes its append-only file and goes
        time.sleep(1.0)
        redis.start()
        for client in clients:
            client.join(timeout=240)
            assert client.error is None, f"{client.match_id}: {client.error!r}"
        final = await_finished(stubs, ids, seconds=120)
        check_records(stubs, final)
        check_acknowledged(clients, final)
    finally:
        redis.stop()


def test_a_short_loadtest_on_the_redis_topology(redis_server: RedisServer, tmp_path: Path) -> None:
    """``meeple up --redis`` and a separate worker, loaded by ``meeple
    loadtest`` from outside: every match completes, with no errors."""
    import json

    redis_server.flush()
    env = {"MEEPLE_LOG_LEVEL": "WARNING", "MEEPLE_RATE_PER_SECOND": "off", **MANY_SIGN_INS}
    env["MEEPLE_MATCHES_PER_MINUTE"] = "100000"
    with ExitStack() as stack:
        up, worker = (
            Meeple(*command, "--metrics-port", "0", "--redis", redis_server.url, env=env)
            for command in (("up", "--port", "0", "--web-port", "0"), ("worker",))
        )
        stack.callback(up.kill)
        stack.callback(worker.kill)
        # Both processes finish matches: their figures add up.
        metrics = ",".join(
            p.wait_for(r"metrics: (http://\S+/metrics)", 10).group(1) for p in (up, worker)
        )
        out = tmp_path / "report.json"
        result = subprocess.run(
            [str(MEEPLE), "loadtest", "--target", up.address, "--metrics", metrics,
             "--game", "all", "--duration", "3", "--concurrency", "6", "--bots", "server",
             "--spectators", "1", "--json", str(out)],
            capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "200"},
        )  # fmt: skip
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        report = json.loads(out.read_text())
    assert report["errors"] == {}
    assert report["matches"]["failed"] == 0
    assert report["matches"]["completed"] == report["matches"]["started"] > 0
    assert report["server"]["matches_finished"] == report["matches"]["completed"]
