"""A write to a page that closed mid-step is one debug line, not a traceback in the server's log;
every other error is still reported."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

from pe_explorer.fixes.departed_pages import quiet_departed_pages
from tornado.websocket import WebSocketClosedError


def test_a_write_to_a_departed_page_is_not_reported_as_an_error():
    loop = asyncio.new_event_loop()
    try:
        reported = []
        loop.set_exception_handler(lambda loop, context: reported.append(context["message"]))
        quiet_departed_pages(loop)
        quiet_departed_pages(loop)  # once per loop: the handler does not wrap itself
        loop.call_exception_handler(
            {"message": "Task exception was never retrieved", "exception": WebSocketClosedError()}
        )
        loop.call_exception_handler(
            {"message": "Task exception was never retrieved", "exception": ValueError("ours")}
        )
        loop.call_exception_handler({"message": "Exception in callback"})
        assert reported == ["Task exception was never retrieved", "Exception in callback"]
    finally:
        loop.close()


def test_the_running_loop_is_the_one_quieted():
    async def handler_set():
        quiet_departed_pages()
        return asyncio.get_running_loop().get_exception_handler()

    # A thread of its own: earlier tiers' Playwright sessions in this process may leave the main
    # thread with an event loop of theirs.
    with ThreadPoolExecutor(max_workers=1) as pool:
        handler = pool.submit(asyncio.run, handler_set()).result()
    assert getattr(handler, "quiets_departed_pages", False)
