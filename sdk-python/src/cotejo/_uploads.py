"""Files to upload: a path, bytes or a binary file object, encoded as multipart/form-data (RFC 7578)."""

from __future__ import annotations

import json
import os
import uuid
from typing import IO, Any, Iterable, Mapping, Optional, Tuple, Union

from ._client import Multipart

#: What ``file`` accepts: a path (``str`` or ``pathlib.Path``), bytes, or a binary file object (``open(p, "rb")``,
#: ``io.BytesIO``, an uploaded file of a web framework).
Uploadable = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]

#: Any ``Uploadable``, or ``{"url": ...}`` (sent as ``file_url``) or ``{"base64": ...}`` (sent as ``file_base64``).
FileInput = Union[Uploadable, Mapping[str, str]]


def is_remote(file: Any) -> bool:
    return isinstance(file, Mapping) and ("url" in file or "base64" in file)


def read_upload(file: Uploadable, filename: Optional[str] = None) -> Tuple[bytes, str]:
    """The bytes of an upload and its file name (an explicit ``filename`` wins)."""
    if isinstance(file, (str, os.PathLike)):
        with open(file, "rb") as f:
            data = f.read()
        return data, filename or os.path.basename(os.fspath(file)) or "file"
    if isinstance(file, (bytes, bytearray, memoryview)):
        return bytes(file), filename or "file"
    read = getattr(file, "read", None)
    if callable(read):
        data = read()
        if isinstance(data, str):
            raise TypeError("Open the file in binary mode (open(path, 'rb')): its read() returned text.")
        own = getattr(file, "name", None)
        own_name = os.path.basename(own) if isinstance(own, str) and own not in ("", "<stdin>") else None
        return bytes(data), filename or own_name or "file"
    raise TypeError(
        "Unsupported `file`: pass a path, bytes, a binary file object, {'url': ...} or {'base64': ...}."
    )


def _quote(value: str) -> str:
    # As browsers (WHATWG HTML) escape names in Content-Disposition: ", CR and LF percent-encoded.
    return value.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def encode_multipart(
    files: Iterable[Tuple[str, bytes, str]],
    fields: Mapping[str, Optional[str]],
) -> Multipart:
    """A multipart body: ``files`` as (field name, bytes, file name), then the text ``fields`` that are not None."""
    boundary = f"cotejo-{uuid.uuid4().hex}"
    chunks: list[bytes] = []
    for name, data, filename in files:
        chunks.append(
            (
                f"--{boundary}\r\n"
                f'Content-Disposition: form-data; name="{_quote(name)}"; filename="{_quote(filename)}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n"
            ).encode("utf-8")
        )
        chunks.append(data)
        chunks.append(b"\r\n")
    for name, value in fields.items():
        if value is None:
            continue
        chunks.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{_quote(name)}"\r\n\r\n'.encode("utf-8"))
        chunks.append(value.encode("utf-8"))
        chunks.append(b"\r\n")
    chunks.append(f"--{boundary}--\r\n".encode("ascii"))
    return Multipart(b"".join(chunks), f"multipart/form-data; boundary={boundary}")


def options_json(options: Mapping[str, Any]) -> str:
    return json.dumps(options, ensure_ascii=False, separators=(",", ":"))
