"""Helpers for page tests: run a page (or the whole app) in AppTest on a chosen data set and state, or
open it on a running server as a protocol-level student (the classroom benchmark's client)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 240  # the machine is shared; a page may fit a model on first run


def page_test(page: str, dataset=None, spec: str | None = None, timeout: float = TIMEOUT, **values) -> AppTest:
    """An AppTest of ``page`` (``"pages/2_SVM_Tree.py"`` or ``"app.py"``), not yet run, whose app
    state holds ``dataset`` (named ``spec`` in links; default: its content digest) and the bound
    ``values`` (``{"tree.C_hard": 100.0}`` — pass them as ``**{"tree.C_hard": 100.0}``)."""
    at = AppTest.from_file(str(ROOT / page), default_timeout=timeout)
    if dataset is not None:
        at.session_state["_svmviz_dataset"] = dataset
        at.session_state["data"] = spec or "upload:test"
    for k, v in values.items():
        at.session_state[k] = v
    return at


def started_class(at: AppTest) -> AppTest:
    """``at`` (the app, not yet run) opened, its Live class box open and "Start a class" clicked."""
    from svmviz_app.live import LIVE_OPEN

    at.run()
    at.session_state[LIVE_OPEN] = True
    at.run()
    return at.button(key="live_start").click().run()


def problems(at: AppTest) -> list[str]:
    """Exceptions shown by the page (tracebacks in the browser): must be empty."""
    return [e.value for e in at.exception]


def step_saved_when_drawing_fails(monkeypatch, page: str, dataset, step_key: str, k: int, owner, name: str,
                                  fails, buttons: str) -> tuple[AppTest, str]:
    """Run ``page`` on ``dataset`` to step ``k`` of the stepper ``step_key`` with ``owner.name`` (a
    function the page imports by name: it must be patched before the page's run imports it)
    raising the ``ParameterError`` a page shows for the calls where ``fails(fn, *args)`` holds;
    the page and the HTML the step figure's buttons (``figure_downloads`` key ``buttons``) save
    when clicked then."""
    import svmviz_app.widgets as widgets
    from svmviz.errors import ParameterError
    from svmviz.export import figure_bytes

    draw, downloads, saves = getattr(owner, name), widgets.figure_downloads, {}

    def drawn(fn, *args, **kwargs):
        if fails(fn, *args):
            raise ParameterError("this step cannot be drawn")
        return draw(fn, *args, **kwargs)

    def recorded(fig, basename, key, *args, **kwargs):
        saves[key] = fig   # what the buttons call when clicked
        return downloads(fig, basename, key, *args, **kwargs)

    monkeypatch.setattr(owner, name, drawn)
    monkeypatch.setattr(widgets, "figure_downloads", recorded)
    at = page_test(page, dataset=dataset).run()
    for _ in range(k):
        at.button(key=f"{step_key}_next").click().run()
    assert not problems(at)
    assert at.session_state[step_key] == k
    return at, figure_bytes(saves[buttons](), "html").decode()


def as_read(text: str) -> str:
    """What a reader sees of a message the app escaped to plain text (``plain_text``): the
    Markdown escapes and the invisible word joiners gone."""
    import re

    return re.sub(r"\\(.)", r"\1", str(text)).replace("\u2060", "")


def as_student(streamlit_url: str, page: str, query: str, body):
    """``await body(s, shown)`` in a protocol session ``s`` (the classroom benchmark's ``Student``,
    which speaks Streamlit's protocol as a browser) opened on ``page`` (``"SVM_Tree"``) with the
    link's ``query``, ``shown`` the widget values the browser shows then; its result."""
    bench = bench_classroom()

    async def session():
        s = bench.Student(int(streamlit_url.rsplit(":", 1)[1]), page, query, bench.PAGES[page])
        try:
            assert await s.open(240), s.errors
            return await body(s, s.widget_states())
        finally:
            await s.close()

    return run_coroutine(session())


def bench_classroom():
    """The classroom benchmark's module (``benchmarks/bench_classroom.py``)."""
    return _benchmark("bench_classroom", "Student")


def _benchmark(name: str, defines: str):
    """The module of ``benchmarks/<name>.py``, loaded once (``defines``: a name it defines once loaded)."""
    import importlib.util
    import sys

    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))   # a benchmark imports its neighbours
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    bench = sys.modules.setdefault(name, importlib.util.module_from_spec(spec))
    if not hasattr(bench, defines):
        spec.loader.exec_module(bench)
    return bench


def run_coroutine(coroutine):
    """Run a protocol client's coroutine on a thread of its own: a browser test's Playwright (sync
    API) keeps an event loop running on this one for the rest of the session, and asyncio.run
    refuses to start inside it."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def click_sends(s, shown, button: str = "Next") -> str:
    """Click ``button`` in protocol session ``s`` (``shown``: the widget values the browser shows)
    and wait for its run; the text of every element that run sent (protobuf text format, so
    non-ASCII characters are escaped: look for ASCII words)."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    bid, _, fragment = s.button(button)
    await s.rerun(list(shown) + [WidgetState(id=bid, trigger_value=True)], fragment)
    assert await s.wait_run(120) and not s.run_errors, s.run_errors
    return "\n".join(str(el) for run, el, _ in s.elements.values() if run == s.run_id)


async def download(s, label: str, timeout: float = 120) -> bytes:
    """The file of the download button ``label`` in protocol session ``s``, as a browser gets it
    on a click: the button's deferred file asked for (a backend operation; Streamlit runs the
    button's callable then), then fetched from the URL the server answers."""
    import asyncio
    import urllib.request

    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    button = next(el.download_button for _, (_, el, _) in sorted(s.elements.items())
                  if el.WhichOneof("type") == "download_button" and el.download_button.label == label)
    answer = asyncio.get_running_loop().create_future()
    handle = s.handle

    def read(data: bytes) -> None:
        msg = ForwardMsg()
        msg.ParseFromString(data)
        if msg.WhichOneof("type") == "backend_operation_response" and not answer.done():
            answer.set_result(msg.backend_operation_response)
        else:
            handle(data)

    s.handle = read
    try:
        bm = BackMsg()
        bm.backend_operation_request.request_id = f"download-{button.id}"
        bm.backend_operation_request.session_id = s.session_id
        bm.backend_operation_request.deferred_file.file_id = button.deferred_file_id
        await s.ws.send(bm.SerializeToString())
        response = await asyncio.wait_for(answer, timeout)
    finally:
        s.handle = handle
    assert not response.error_msg, response.error_msg
    url = response.deferred_file.url
    url = url if url.startswith("http") else s.origin + url

    def fetch() -> bytes:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.read()

    return await asyncio.to_thread(fetch)


def bench_live():
    """The live-class benchmark's module (``benchmarks/bench_live.py``: its ``LiveSession`` runs
    a browser's timers and the instructor's claim element, with a local storage of its own)."""
    return _benchmark("bench_live", "LiveSession")


def protocol(coroutine):
    """Run a protocol client's coroutine to its end (on a thread of its own, as ``as_student``)."""
    return run_coroutine(coroutine)
