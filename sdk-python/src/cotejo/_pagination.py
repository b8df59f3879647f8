"""Cursor pagination: a ``list`` call returns its first ``Page``; iterating the page walks every item of every page."""

from __future__ import annotations

from typing import Any, Callable, Generic, Iterator, Mapping, Optional, TypeVar

T = TypeVar("T")


class Page(Generic[T]):
    """One page of a list: ``data`` and ``has_more`` as the API returned them (``body`` is the whole list object).

    ``for item in page`` yields every item of this page and of the next ones (the SDK follows ``starting_after`` with the
    last item's cursor while ``has_more`` is true); ``iter_pages()`` yields the pages themselves.
    """

    def __init__(
        self,
        body: Mapping[str, Any],
        fetch: Callable[[Optional[str]], Mapping[str, Any]],
        cursor_of: Callable[[Any], str],
    ) -> None:
        #: The list object (``{"object": "list", "data": [...], "has_more": ...}``).
        self.body = body
        self._fetch = fetch
        self._cursor_of = cursor_of

    @property
    def data(self) -> list[T]:
        return list(self.body.get("data", []))

    @property
    def has_more(self) -> bool:
        return bool(self.body.get("has_more"))

    def _next_cursor(self) -> Optional[str]:
        data = self.body.get("data") or []
        return self._cursor_of(data[-1]) if self.has_more and data else None

    def has_next_page(self) -> bool:
        return self._next_cursor() is not None

    def get_next_page(self) -> "Page[T]":
        """The next page (raises ``LookupError`` when ``has_more`` is false)."""
        cursor = self._next_cursor()
        if cursor is None:
            raise LookupError("No next page: `has_more` is false.")
        return Page(self._fetch(cursor), self._fetch, self._cursor_of)

    def iter_pages(self) -> Iterator["Page[T]"]:
        page: Page[T] = self
        while True:
            yield page
            if not page.has_next_page():
                return
            page = page.get_next_page()

    def __iter__(self) -> Iterator[T]:
        for page in self.iter_pages():
            yield from page.data

    def __getitem__(self, key: str) -> Any:
        return self.body[key]

    def __repr__(self) -> str:
        return f"Page(data=<{len(self.body.get('data', []))} items>, has_more={self.has_more})"
