"""Byte offset <-> line/column arithmetic over UTF-8 text. Pure; shared by the CLI and the
LSP conversion module (which adds UTF-16 columns on top)."""

from __future__ import annotations

from bisect import bisect_right


class LineIndex:
    """Line starts of a UTF-8 byte string. Lines and columns are 0-based here."""

    __slots__ = ("data", "starts")

    def __init__(self, data: bytes) -> None:
        self.data = data
        starts = [0]
        find = data.find
        i = find(b"\n")
        while i >= 0:
            starts.append(i + 1)
            i = find(b"\n", i + 1)
        self.starts = starts

    @classmethod
    def of_text(cls, text: str) -> "LineIndex":
        return cls(text.encode("utf-8", "surrogatepass"))

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset) - 1

    def line_text(self, line: int) -> bytes:
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.data)
        return self.data[start:end]

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column in code points) of a byte offset."""
        offset = max(0, min(offset, len(self.data)))
        line = self.line_of(offset)
        col = len(self.data[self.starts[line] : offset].decode("utf-8", "replace"))
        return line, col

    def position_utf16(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.data)))
        line = self.line_of(offset)
        prefix = self.data[self.starts[line] : offset].decode("utf-8", "replace")
        return line, len(prefix.encode("utf-16-le")) // 2

    def position_utf8(self, offset: int) -> tuple[int, int]:
        offset = max(0, min(offset, len(self.data)))
        line = self.line_of(offset)
        return line, offset - self.starts[line]

    def offset(self, line: int, column: int, encoding: str = "utf-16") -> int:
        """Byte offset of a (line, column) where column counts ``encoding`` units
        (``utf-8``, ``utf-16`` or ``utf-32``/code points). Clamped to the line."""
        if line >= len(self.starts):
            return len(self.data)
        if line < 0:
            return 0
        start = self.starts[line]
        raw = self.line_text(line)
        content = raw[:-1] if raw.endswith(b"\n") else raw
        if encoding == "utf-8":
            return start + min(column, len(content))
        text = content.decode("utf-8", "replace")
        if encoding == "utf-16":
            units = 0
            for i, ch in enumerate(text):
                if units >= column:
                    return start + len(text[:i].encode("utf-8"))
                units += 2 if ord(ch) > 0xFFFF else 1
            return start + len(content)
        return start + len(text[:column].encode("utf-8"))
