"""SGF (Smart Game Format, FF[4]) for Go and NoGo games: write a game record, read one back.

Written: ``(;FF[4]GM[1]CA[UTF-8]AP[banditree]SZ[9]KM[7.5]RU[Chinese]PB[...]PW[...]RE[B+3.5]
;B[ee];W[]...)`` with optional AB/AW/PL for a start position that is not the empty board.
Coordinates: two letters, column then row, ``a`` = first, rows from the top (so move code
``row * size + col`` is ``chr(97 + col) + chr(97 + row)``); a pass is ``[]`` (``[tt]`` is also read
as a pass on boards up to 19x19).  NoGo records are written with GM[1] and RU[NoGo], and read back
as NoGo when RU says so.  Property values are escaped (``\\]`` and ``\\\\``) as FF[4] requires.

Reading keeps the main line (first variation at every branch), the root properties, setup stones
(AB/AW in the root node) and the moves; anything else is ignored.  Malformed text raises
ValueError saying where.  SGF text (:func:`load_sgf`) and a file (:func:`load_sgf_file`) are
separate entry points: text is never opened as a path, and a file is read only if it is a regular
file of at most ``MAX_SGF_BYTES``.  Reference: https://www.red-bean.com/sgf/ (FF[4]).
"""
from __future__ import annotations

import dataclasses
import os
import re
import stat

__all__ = ["SgfRecord", "write_sgf", "parse_sgf", "load_sgf", "load_sgf_file", "read_sgf_file",
           "game_from_record", "MAX_SGF_BYTES", "MAX_SGF_MOVES"]

#: The largest SGF file :func:`read_sgf_file` reads (10 MB; a 9x9 game record is about 2 kB).
MAX_SGF_BYTES = 10 * 1024 * 1024
#: The most moves (and main-line nodes after the root) :func:`parse_sgf` reads: a longer record is
#: refused as soon as the parse reaches its first node past the limit, so the work of reading a
#: record is bounded by this and not only by the bytes (10 MB of ``;B[]`` are 2.6 million passes).
MAX_SGF_MOVES = 20_000
#: Items (trees, nodes, property values, variations included) a record may hold per move of
#: that limit: room for comments, times and review variations, and a bound on the parse.
ITEMS_PER_MOVE = 16


@dataclasses.dataclass
class SgfRecord:
    """What an SGF main line says: root properties, setup stones and moves.

    size, komi, rules, result, black, white: root properties (result "" if absent)
    game: "go" or "nogo" (from RU)
    setup: [(colour 1 Black / 2 White, code)]; to_move: 0 Black / 1 White (PL, else Black)
    moves: [(player 0 Black / 1 White, code or None for pass)]
    properties: every root property as {name: [values]}
    comments: one per move, the text of the move node's C[] ("" if none)
    """

    size: int = 19
    komi: float = 0.0
    rules: str = ""
    result: str = ""
    black: str = ""
    white: str = ""
    game: str = "go"
    setup: list = dataclasses.field(default_factory=list)
    to_move: int = 0
    moves: list = dataclasses.field(default_factory=list)
    properties: dict = dataclasses.field(default_factory=dict)
    comments: list = dataclasses.field(default_factory=list)


def _escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("]", "\\]")


def _point(code: int, size: int) -> str:
    r, c = divmod(int(code), size)
    return chr(97 + c) + chr(97 + r)


def write_sgf(game, black: str = "Black", white: str = "White", result: str | None = None,
              comment: str | None = None, comments=None) -> str:
    """SGF text of ``game`` (a Go or NoGo object): its start position and every move played.

    result: RE value; default the game's own result once it is over (``B+3.5``, ``W+R``, ``0``),
    omitted for an unfinished game.  comment: the root's C[]; comments: {move index: text} (or a
    list, one per move, "" for none), written as C[...] in that move's node (escaped).
    """
    size = game.size
    nogo = game.name == "nogo"
    props = [("FF", "4"), ("GM", "1"), ("CA", "UTF-8"), ("AP", "banditree"), ("SZ", str(size))]
    if nogo:
        props.append(("RU", "NoGo"))
    else:
        props += [("KM", f"{game.komi:g}"), ("RU", "Chinese")]
    props += [("PB", black), ("PW", white)]
    if result is None and game.terminal():
        result = game.result_string()
    if result:
        props.append(("RE", result))
    if comment:
        props.append(("C", comment))
    root = "".join(f"{k}[{_escape(v)}]" for k, v in props)
    for colour, key in ((1, "AB"), (2, "AW")):
        pts = [_point(m, size) for c, m in game.setup if c == colour]
        if pts:
            root += key + "".join(f"[{p}]" for p in pts)
    if game.setup and game.first_to_move == 1:
        root += "PL[W]"
    if comments is not None and not isinstance(comments, dict):
        comments = dict(enumerate(comments))
    nodes = []
    for k, (player, move) in enumerate(zip(game.movers, game.moves)):
        value = "" if move == size * size else _point(move, size)
        text = (comments or {}).get(k)
        nodes.append(f";{'BW'[player]}[{value}]" + (f"C[{_escape(text)}]" if text else ""))
    lines = [f"(;{root}"]
    for i in range(0, len(nodes), 12):
        lines.append("".join(nodes[i:i + 12]))
    return "\n".join(lines) + ")\n"


# -- reading ---------------------------------------------------------------------------------------
_VALUE_STOP = re.compile(r"[\\\]]")  # what ends a run of plain text inside a value: \ or ]
_SPACE = re.compile(r"\s*")  # str.isspace characters (re's \s for str patterns)
_MAX_NAME = 64  # letters of a property name (FF[4] names have one or two, FF[3] ones a few more)


def _count(items: int, max_items: int) -> int:
    """One more item of the parse (:func:`_nodes`), or ValueError past ``max_items``."""
    if items >= max_items:
        raise ValueError(f"SGF record has more than {max_items} trees, nodes, property values and escapes "
                         "(the most read)")
    return items + 1


def _nodes(text: str, max_nodes: int, max_items: int):
    """Main-line nodes of the first game tree: a list of {property: [values]}.

    Bounded work: ValueError as soon as there would be more than ``max_nodes`` main-line nodes,
    or more than ``max_items`` items in all (each ``(``, node, property value and escape inside a
    value, main line or not, counts one), or a property name of more than 64 letters; the text of
    values and white space are scanned by ``re``, not a character at a time.  Nodes off the main
    line are parsed and not kept.

    Iterative (hostile nesting cannot exhaust the recursion limit): a stack holds, per open
    ``(``, whether that tree lies on the main line and whether it already had a child tree.
    """
    i, n = text.find("("), len(text)
    if i < 0:
        raise ValueError("not an SGF record: no '(' found")
    nodes: list = []
    stack: list = []  # [on_main_line, had_child]
    current = None  # the node properties go to: a dict (main line), False (a node not kept), None
    items = 0
    while i < n:
        ch = text[i]
        if ch in "(;":
            items = _count(items, max_items)
        if ch == "(":
            main = True
            if stack:
                main = stack[-1][0] and not stack[-1][1]
                stack[-1][1] = True
            stack.append([main, False])
            current = None
            i += 1
        elif ch == ")":
            if not stack:
                raise ValueError(f"unbalanced ')' in SGF at position {i}")
            stack.pop()
            if not stack:
                return nodes
            current = None
            i += 1
        elif ch == ";":
            if not stack:
                raise ValueError(f"SGF node outside a game tree at position {i}")
            current = False
            if stack[-1][0]:
                if len(nodes) == max_nodes:
                    raise ValueError(f"SGF main line has more than {max_nodes - 1} nodes after the root "
                                     "(the most read)")
                current = {}
                nodes.append(current)
            i += 1
        elif ch.isspace():
            i = _SPACE.match(text, i).end()
        elif ch.isalpha():
            j = i
            while j < n and text[j].isalpha() and j - i <= _MAX_NAME:
                j += 1
            if j - i > _MAX_NAME:
                raise ValueError(f"SGF property name longer than {_MAX_NAME} letters at position {i}")
            name = "".join(c for c in text[i:j] if c.isupper())  # FF[3] lower-case letters dropped
            i = j
            values = []
            while True:
                i = _SPACE.match(text, i).end()
                if i >= n or text[i] != "[":
                    break
                items = _count(items, max_items)
                i += 1
                value = []
                while True:
                    stop = _VALUE_STOP.search(text, i)
                    if stop is None:
                        raise ValueError(f"SGF property {name} has an unterminated value")
                    j = stop.start()
                    value.append(text[i:j])
                    if text[j] == "]":
                        i = j + 1
                        break
                    if j + 1 >= n:  # a backslash as the last character
                        raise ValueError(f"SGF property {name} has an unterminated value")
                    if text[j + 1] not in "\r\n":  # an escaped character; \ and a newline: a soft line break
                        value.append(text[j + 1])
                    i = j + 2
                    items = _count(items, max_items)
                values.append("".join(value))
            if not values:
                raise ValueError(f"SGF property {name!r} has no value (at position {i})")
            if current is None:
                raise ValueError(f"SGF property {name!r} outside a node (at position {i})")
            if current is not False:
                current.setdefault(name, []).extend(values)
        else:
            raise ValueError(f"unexpected character {ch!r} in SGF at position {i}")
    raise ValueError("SGF record is not closed with ')'")


def _code(value: str, size: int):
    """Move code of an SGF point, None for a pass."""
    v = value.strip()
    if v == "" or (v == "tt" and size <= 19):
        return None
    if len(v) != 2 or not ("a" <= v[0] < chr(97 + size)) or not ("a" <= v[1] < chr(97 + size)):
        raise ValueError(f"SGF point must be two letters a..{chr(96 + size)}, got {value!r}")
    return (ord(v[1]) - 97) * size + (ord(v[0]) - 97)


def _size(value: str) -> int:
    """The board size of an SGF SZ value (``9`` or ``9:9``), checked against the supported sizes
    before anything is read at that size (a rectangle ``aa:zz`` on a huge board would be huge)."""
    from treepolicies.games.board import MAX_SIZE, MIN_SIZE

    parts = value.split(":")
    if len(parts) > 2 or any(not p.strip().isdecimal() or len(p.strip()) > 6 for p in parts):
        raise ValueError(f"SGF SZ (board size) must be an integer in {MIN_SIZE}..{MAX_SIZE}, got {value[:20]!r}")
    sizes = {int(p) for p in parts}
    if len(sizes) > 1:
        raise ValueError(f"SGF SZ (board size) must be a square board, got {value[:20]!r}")
    size = sizes.pop()
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"SGF SZ (board size) must be an integer in {MIN_SIZE}..{MAX_SIZE}, got {value[:20]!r}")
    return size


def parse_sgf(text: str, max_moves: int = MAX_SGF_MOVES) -> SgfRecord:
    """The main line of the first game in ``text`` as an :class:`SgfRecord`; ValueError if
    malformed, longer than ``max_moves`` moves (or main-line nodes after the root), or holding
    more than ``ITEMS_PER_MOVE * (max_moves + 1)`` items in all (:func:`_nodes`)."""
    if isinstance(max_moves, bool) or not isinstance(max_moves, int) or max_moves < 0:
        raise ValueError(f"max_moves must be an integer >= 0, got {max_moves!r}")
    nodes = _nodes(str(text), max_moves + 1, ITEMS_PER_MOVE * (max_moves + 1))
    if not nodes:
        raise ValueError("SGF record has no node")
    root = nodes[0]
    rec = SgfRecord(properties=root)
    gm = root.get("GM", ["1"])[0].strip()
    if gm != "1":
        raise ValueError(f"SGF GM must be 1 (Go), got {gm!r}")
    rec.size = _size(root.get("SZ", ["19"])[0])  # checked before any point is read
    km = root.get("KM", ["0"])[0].strip() or "0"
    try:
        rec.komi = float(km)
    except ValueError:
        raise ValueError(f"SGF KM (komi) must be a number, got {km[:20]!r}") from None
    first = lambda key: root.get(key, [""])[0]  # noqa: E731
    rec.rules, rec.result, rec.black, rec.white = first("RU"), first("RE"), first("PB"), first("PW")
    rec.game = "nogo" if rec.rules.strip().lower() == "nogo" else "go"
    placed: set = set()  # a point is set up once: the setup can never exceed size * size stones
    for key, colour in (("AB", 1), ("AW", 2)):
        for value in root.get(key, []):
            if ":" in value:  # compressed rectangle aa:cc
                a, b = (_code(v, rec.size) for v in value.split(":", 1))
                if a is None or b is None:
                    raise ValueError(f"SGF {key} rectangle {value!r} is not two points")
                (r0, c0), (r1, c1) = divmod(a, rec.size), divmod(b, rec.size)
                codes = [r * rec.size + c for r in range(min(r0, r1), max(r0, r1) + 1)
                         for c in range(min(c0, c1), max(c0, c1) + 1)]
            else:
                code = _code(value, rec.size)
                if code is None:
                    raise ValueError(f"SGF {key} needs a point, got {value!r}")
                codes = [code]
            for code in codes:
                if code in placed:
                    raise ValueError(f"SGF setup point {_point(code, rec.size)!r} is given twice (AB/AW)")
                placed.add(code)
                rec.setup.append((colour, code))
    pl = first("PL").strip().upper()
    rec.to_move = 1 if pl in ("W", "WHITE") else 0
    for k, node in enumerate(nodes):
        if k > 0 and ("AB" in node or "AW" in node or "AE" in node):
            raise ValueError(f"SGF setup (AB/AW/AE) after the root node (node {k}) is not supported")
        for key, player in (("B", 0), ("W", 1)):
            if key in node:
                if len(rec.moves) == max_moves:  # a node with both B and W holds two
                    raise ValueError(f"SGF main line is longer than {max_moves} moves (the most read)")
                rec.moves.append((player, _code(node[key][0], rec.size)))
                rec.comments.append(node.get("C", [""])[0])
    return rec


def game_from_record(rec: SgfRecord, move_number: int | None = None, game: str | None = None):
    """The position after the first ``move_number`` moves (all if None) of a record, as a game
    object with that history (Go with the record's komi, or NoGo).  Moves are replayed by the rule
    GTP ``play`` uses: a Go game ended by two passes or the move cap is reopened
    (:meth:`Go.reopen`) when the record goes on, so every record :func:`write_sgf` writes of a GTP
    session reads back.  A move illegal by the rules: ValueError naming it."""
    from treepolicies.games.go import Go, check_komi
    from treepolicies.games.nogo import NoGo

    kind = game or rec.game
    if kind not in ("go", "nogo"):
        raise ValueError(f"game must be 'go' or 'nogo', got {kind!r}")
    if move_number is not None and (isinstance(move_number, bool) or not isinstance(move_number, int) or move_number < 0):
        raise ValueError(f"move_number must be an integer >= 0, got {move_number!r}")
    if kind == "go":
        km = rec.properties.get("KM", [str(rec.komi)])[0].strip()
        check_komi(rec.komi, rec.size, shown=repr(km[:20]), name="SGF KM (komi)")
    g = Go(size=rec.size, komi=rec.komi) if kind == "go" else NoGo(size=rec.size)
    if rec.setup or rec.to_move:
        g.setup_position(rec.setup, rec.to_move)
    moves = rec.moves if move_number is None else rec.moves[:move_number]
    with g.replaying():  # Go: the root's superko list is written once, at the end
        for k, (player, code) in enumerate(moves):
            if code is None:
                code = g.size * g.size
            if kind == "go" and g.terminal():
                g.reopen()  # as GTP play does: two passes and the move cap do not end a recorded game
            if player != g.to_move:
                g.set_to_move(player)
            if not g.is_legal(code):
                raise ValueError(f"SGF move {k + 1} ({'BW'[player]} {g.move_to_str(code) if code <= g.size ** 2 else code}) is illegal")
            g.play(code)
    return g


def read_sgf_file(path, max_bytes: int = MAX_SGF_BYTES) -> str:
    """The text of the SGF file at ``path`` (UTF-8, undecodable bytes replaced).

    Only a regular file of at most ``max_bytes`` bytes is read: a device (``/dev/zero``), a FIFO,
    ``/dev/stdin`` or a folder is refused without being opened for reading, so that nothing can
    hang or exhaust memory.  ValueError for those; OSError (FileNotFoundError, PermissionError)
    when the file cannot be opened.
    """
    name = os.fspath(path)
    if not stat.S_ISREG(os.stat(name).st_mode):
        raise ValueError(f"{name} is not a regular file")
    # O_NONBLOCK: a FIFO put in the file's place after the check does not block the open
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{name} is not a regular file")
        if info.st_size > max_bytes:
            raise ValueError(f"{name} is larger than {max_bytes} bytes ({info.st_size} bytes)")
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:  # the file grew after the check
        raise ValueError(f"{name} is larger than {max_bytes} bytes")
    return data.decode("utf-8", errors="replace")


def load_sgf(text, move_number: int | None = None, game: str | None = None):
    """A game object from SGF text (str, or bytes decoded as UTF-8), at ``move_number`` (see
    :func:`game_from_record`).  Text is never taken for a file name: :func:`load_sgf_file` reads a
    file."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        raise TypeError(f"load_sgf takes SGF text (str or bytes), got {type(text).__name__}; "
                        "read a file with load_sgf_file(path)")
    if "(" not in text and len(text) < 4096 and "\n" not in text.strip() and os.path.exists(text.strip()):
        raise ValueError(f"not an SGF record: no '(' found; {text.strip()[:100]!r} names a file, "
                         "read it with load_sgf_file")
    return game_from_record(parse_sgf(text), move_number, game)


def load_sgf_file(path, move_number: int | None = None, game: str | None = None, max_moves: int = MAX_SGF_MOVES):
    """A game object from the SGF file at ``path`` (read by :func:`read_sgf_file`: a regular file
    of at most MAX_SGF_BYTES; parsed by :func:`parse_sgf`: at most ``max_moves`` moves), at
    ``move_number`` (see :func:`game_from_record`)."""
    return game_from_record(parse_sgf(read_sgf_file(path), max_moves), move_number, game)
