"""A hostile client against a live class, at the protocol level: one address floods a room with
sessions, answers from every one of them, and fills the server's room store.

The server runs the README's classroom way (``serve.py``) with its rooms in a redis-server this
script starts, listening on every interface; the instructor's session comes from 127.0.0.1, the
flood from this machine's network address (``--address``), as a student's laptop would. What it
prints, per case: the outcome, the server's CPU seconds and RSS.

  python benchmarks/flood_room.py --address 192.0.2.2 [--sessions 100] [--answers 15] [--rooms 200]

Cases:
  answers  the instructor asks a question; ``--answers`` sessions of one browser (tabs sharing its
           local storage) open the join link and answer it: the tally and the seats
  seats    ``--sessions`` new browsers from ``--address`` open the join link, ``--batch`` at a time;
           then the seats the room counts, what the flood was told, and whether a student at
           ``--student-address`` gets a seat
  rooms    ``--rooms`` sessions each open the Live class box and click "Start a class", closing at once;
           then the real instructor's "Start a class": what their page shows
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_classroom as bc   # noqa: E402
import bench_live as bl        # noqa: E402
from harness import start_app_server, stop_app_server   # noqa: E402


class Remote(bl.LiveSession):
    """A LiveSession reaching the server at ``host`` (an address the server sees as such), running
    the client element's script as a browser does with its local storage ``storage`` (a new
    browser's is empty)."""

    def __init__(self, host: str, port: int, page: str, query: str, storage: dict | None = None):
        super().__init__(port, page, query, storage)
        self.host = f"[{host}]" if ":" in host else host
        self.origin = f"http://{self.host}:{port}"
        self.client_seen: dict[str, str] = {}

    def _element(self, path: tuple, el, fragment_id: str) -> None:
        super()._element(path, el, fragment_id)
        comp = el.bidi_component if el.WhichOneof("type") == "bidi_component" else None
        if comp is None or not comp.component_name.endswith("svmviz_client") or self.client_seen.get(comp.id) == comp.json:
            return
        self.client_seen[comp.id] = comp.json
        data = json.loads(comp.json)
        if data.get("keep"):
            self.storage["svmviz.client"] = data["keep"]
        else:
            held = bl.trigger_state(comp.id, "held", self.storage.get("svmviz.client", ""))
            asyncio.get_running_loop().create_task(self.rerun(self.widget_states() + [held], fragment_id))

    async def connect(self, timeout: float) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(f"ws://{self.host}:{self.port}/_stcore/stream", origin=self.origin,
                                subprotocols=["streamlit"], max_size=None, max_queue=None, proxy=None,
                                open_timeout=timeout, close_timeout=5, ping_interval=None)
        self.reader = asyncio.create_task(self._read())

    def texts(self) -> list[str]:
        out = []
        for el in self.current():
            kind = el.WhichOneof("type")
            if kind == "markdown":
                out.append(el.markdown.body)
            elif kind == "alert":
                out.append(el.alert.body)
            elif kind == "exception":
                out.append(f"EXCEPTION {el.exception.type}: {el.exception.message}")
            elif kind == "text":
                out.append(el.text.body)
        return out


REFUSED = r"this class is full|your network|new devices joined|classes already|removed this device"


def said(s: Remote, pattern: str) -> str:
    return next((t for t in s.texts() if re.search(pattern, t)), "")


async def start_class(s: Remote, timeout: float) -> str:
    await s.open(timeout)
    await s.expand("Live class", timeout)
    await s.wait_for(lambda x: x.button("Start a class") is not None, timeout)
    await s.click("Start a class", timeout)
    return s.find_text(bl.CODE_RE) or ""


async def run(args, pid: int, url: str) -> None:
    from svmviz_app.rooms_redis import RedisRoomStore

    store = RedisRoomStore(url)
    page, t = "SVM_Tree", args.timeout

    def cpu() -> float:
        return bc.proc_cpu(pid)

    await bc.purge_visit(args.port, t)
    teacher = Remote("127.0.0.1", args.port, page, bc.default_query(page))
    code = await start_class(teacher, t)
    claim = json.loads(teacher.storage["svmviz.live.claim"])
    print(f"room {code}; load {bc.loadavg()[0]:.2f}", flush=True)

    # ---- answers: tabs of one browser (one local storage)
    qid = store.pose(code, claim["token"], "what happens next?", ["a", "b"], 0)
    browser: dict = {}
    tabs = [Remote(args.address, args.port, page, f"room={code}", storage=browser) for _ in range(args.answers)]
    c0 = cpu()
    for s in tabs:
        await s.open(t)
        await s.wait_for(lambda x: bool(x.answer_buttons()) or bool(said(x, REFUSED)), 15.0)
        buttons = s.answer_buttons()
        if buttons:
            await s.click(buttons[0][0], t, by_id=True)
    tally = store.tally(code, claim["token"])
    print(f"answers: {len(tabs)} sessions of one browser answer question {qid}: tally {tally.counts} "
          f"({tally.n_answers} answers), {store.follow(code).n_students} seat(s), server CPU {cpu() - c0:.1f} s",
          flush=True)

    # ---- seats: new browsers from one address
    flood = [Remote(args.address, args.port, page, f"room={code}") for _ in range(args.sessions)]
    c0, w0 = cpu(), time.time()
    for i in range(0, len(flood), args.batch):
        await asyncio.gather(*(s.open(t) for s in flood[i:i + args.batch]))
    seats = store.follow(code).n_students
    told = {said(s, REFUSED)[:60] + "…" for s in flood} - {"…"}
    real = Remote(args.student_address, args.port, page, f"room={code}")
    await real.open(t)
    await real.wait_for(lambda x: bool(said(x, r"Following the instructor") or said(x, REFUSED)), 15.0)
    joined = "joined" if said(real, r"Following the instructor") else said(real, REFUSED)
    print(f"seats: {len(flood)} sessions from {args.address}: {seats} seats held, {time.time() - w0:.1f} s, "
          f"server CPU {cpu() - c0:.1f} s, RSS {bc.proc_rss_mb(pid):.0f} MB; the flood was told {sorted(told)}; "
          f"a student at {args.student_address}: {joined!r}, {store.follow(code).n_students} seats", flush=True)
    for s in flood + tabs + [real]:
        await s.close()

    # ---- rooms
    c0, w0, made = cpu(), time.time(), 0
    for i in range(0, args.rooms, args.batch):
        batch = [Remote(args.address, args.port, page, bc.default_query(page)) for _ in range(min(args.batch, args.rooms - i))]
        codes = await asyncio.gather(*(start_class(s, t) for s in batch))
        made += sum(bool(c) for c in codes)
        for s in batch:
            await s.close()
    n_rooms = len(store)
    host = Remote("127.0.0.1", args.port, page, bc.default_query(page))
    got = await start_class(host, t)
    shown = got or said(host, r"EXCEPTION") or said(host, REFUSED) or "(nothing)"
    print(f"rooms: {args.rooms} 'Start a class' from {args.address}: {made} started, {n_rooms} rooms in the store, "
          f"{time.time() - w0:.1f} s, server CPU {cpu() - c0:.1f} s, RSS {bc.proc_rss_mb(pid):.0f} MB; "
          f"the real instructor then gets: {shown!r}; load {bc.loadavg()[0]:.2f}", flush=True)
    await host.close()
    await teacher.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--address", required=True, help="this machine's network address (not 127.0.0.1)")
    ap.add_argument("--student-address", default="127.0.0.1",
                    help="a real student's address, another of this machine's (e.g. its IPv6 one)")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--answers", type=int, default=15)
    ap.add_argument("--rooms", type=int, default=200)
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    args.port = args.port or bc.free_port()
    folder = tempfile.mkdtemp()
    redis_proc, url = bl.start_redis(bc.free_port(), folder)
    server = start_app_server(args.port, config=("server.address=::",), env={"SVMVIZ_ROOMS": url})
    try:
        asyncio.run(run(args, server.pid, url))
    finally:
        stop_app_server(server)
        redis_proc.terminate()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
