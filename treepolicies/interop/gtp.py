"""A Go Text Protocol (GTP version 2) engine around a banditree player, for Go and NoGo.

GoGui, Sabaki, gomill or GNU Go's twogtp drive it over stdin/stdout (``banditree gtp ...``).
Protocol (https://www.lysator.liu.se/~gunnar/gtp/gtp2-spec-draft2/gtp2-spec.html):

* each command line is cleaned as section 2.2 of the spec asks: control characters other than
  tab and newline removed, tabs made spaces, ``#`` comments dropped, empty lines ignored; an
  optional leading integer is the command id and is echoed in the answer;
* a success answers ``=[id] result`` and a failure ``?[id] message``, each followed by an empty
  line; a multi-line result never contains an empty line.

Commands: protocol_version, name, version, known_command, list_commands, boardsize, clear_board,
komi, play, genmove, undo, showboard, final_score, loadsgf, quit; analysis (with an MCTS player,
:mod:`treepolicies.interop.gtp_analysis`): gogui-analyze_commands, banditree-visits, banditree-values,
banditree-pv (GoGui gfx) and lz-analyze (Leela Zero / KataGo style, for Sabaki and Lizzie; over
:meth:`GtpEngine.run` it streams reports until the next command arrives).  Analysis searches copies
of the position with streams of their own: the position, the undo stack and genmove's moves are
exactly as without it.

Robustness: a command either succeeds or leaves the position exactly as it was (every change is
made on a copy that replaces the position only once the command has succeeded); unknown commands,
bad colours or vertices, occupied points, illegal moves, oversized lines (more than ``MAX_LINE``
bytes, discarded) and undecodable bytes all answer ``? message``.  NoGo: ``play`` refuses a
capturing or suicidal move and ``pass`` (there is none); ``genmove`` answers ``resign`` when the
colour to play has no legal move.  Go: two passes and the move cap end self-play games and
playouts, not a GTP session: ``play`` accepts every move legal by the rules after them; ``genmove``
after two passes answers ``pass`` and after the move cap searches on.  Every move ``play`` or
``genmove`` makes (a pass included) goes on the undo stack, so ``undo`` stays in step with the
controller.

Memory: the undo stack holds one step back per move (the state slots the move changed,
:meth:`BoardGame.undo_step`), not a copy of the game, so memory grows by O(1) per move, and a game
holds at most ``max_moves`` (default ``MAX_GAME_MOVES``) moves: past them ``play`` and ``genmove``
answer ``? game too long`` and ``loadsgf`` refuses a longer record (:func:`sgf.parse_sgf` stops
reading at the limit).
"""
from __future__ import annotations

import sys

from bandits.rng import Stream
from treepolicies.games.board import H_PASSES, MAX_SIZE, MIN_SIZE
from treepolicies.games.go import Go, check_komi
from treepolicies.games.nogo import NoGo
from treepolicies.interop.sgf import MAX_SGF_MOVES

__all__ = ["GtpEngine", "COMMANDS", "MAX_LINE", "MAX_GAME_MOVES", "clean_line"]

COMMANDS = ("protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
            "clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score", "loadsgf",
            "quit", "gogui-analyze_commands", "lz-analyze", "banditree-visits", "banditree-values",
            "banditree-pv")
MAX_LINE = 8192
#: The most moves a game over GTP holds (play, genmove; loadsgf reads no longer record): the
#: history and the undo stack grow by O(1) per move (:meth:`BoardGame.undo_step`), so this bounds
#: a session's memory whatever a controller sends (docs/go-nogo.md).
MAX_GAME_MOVES = MAX_SGF_MOVES
_GTP_STREAM = 0x475450  # "GTP": stream id of genmove's randomness


def _next_line(inp):
    """The next input item: ("eof", None), ("long", None) for a line over MAX_LINE bytes (its rest
    discarded) or ("line", text)."""
    raw = inp.readline(MAX_LINE + 1)
    if not raw:
        return "eof", None
    if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
        while True:  # discard the rest of the oversized line
            more = inp.readline(MAX_LINE + 1)
            if not more or more.endswith(b"\n"):
                break
        return "long", None
    return "line", raw.decode("utf-8", errors="replace")


class GtpError(Exception):
    """A failure answer (``? message``)."""


def clean_line(raw: str) -> str:
    """GTP 2.2 preprocessing: drop control characters (except tab), tabs to spaces, strip comments."""
    text = "".join(" " if ch == "\t" else ch for ch in raw if ch == "\t" or (ord(ch) >= 32 and ord(ch) != 127))
    return text.split("#", 1)[0].strip()


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("banditree")
    except Exception:  # not installed as a distribution (running from a checkout)
        return "0.1.0"


def _colour(text: str) -> int:
    t = text.lower()
    if t in ("b", "black"):
        return 0
    if t in ("w", "white"):
        return 1
    raise GtpError(f"syntax error: colour must be b, black, w or white, got {text[:20]!r}")


class GtpEngine:
    """The protocol state: a game (Go or NoGo), its undo stack and a player to generate moves.

    game: "go" or "nogo"; size 5..19; komi (Go); player: a player spec for
    treepolicies.players.make_player (e.g. ``miucb:episodic=true``) or a Player; playouts /
    seconds: its budget per move; seed: genmove k draws from stream (seed, GTP, k); max_moves
    (1..MAX_GAME_MOVES): the most moves a game holds (play, genmove, loadsgf).
    """

    def __init__(self, game: str = "go", size: int = 9, komi: float = 7.5, player="miucb:episodic=true",
                 playouts: int | None = 3000, seconds: float | None = None, seed: int = 0, name: str = "banditree",
                 analysis_iterations: int | None = None, log=None, max_moves: int = MAX_GAME_MOVES):
        from treepolicies.players import make_player

        if game not in ("go", "nogo"):
            raise ValueError(f"game must be 'go' or 'nogo', got {game!r}")
        if isinstance(max_moves, bool) or not isinstance(max_moves, int) or not 1 <= max_moves <= MAX_GAME_MOVES:
            raise ValueError(f"max_moves must be an integer in 1..{MAX_GAME_MOVES}, got {max_moves!r}")
        self.kind, self.size, self.komi, self.seed, self.engine_name = game, size, komi, seed, name
        self.max_moves = max_moves
        self.player = make_player(player, playouts=playouts, seconds=seconds)
        if hasattr(self.player, "for_game"):  # a player built for its game (``strong``: treepolicies.strong)
            self.player = self.player.for_game(game)
        self.game = self._new_game(size, komi)  # checks size and komi
        self.undo_stack: list = []
        self.genmoves = 0
        self.done = False
        # analysis (treepolicies.interop.gtp_analysis): its own stream counters and the last gfx search
        self.analysis_iterations = analysis_iterations
        self.log = log  # a text stream (stderr): one search record per genmove
        self.analyses = 0
        self._gfx_cache = None

    def _new_game(self, size, komi):
        return Go(size=size, komi=komi) if self.kind == "go" else NoGo(size=size)

    def _replace(self, game, keep_undo: bool = True) -> None:
        """Make ``game`` the position; with ``keep_undo`` it is the current one after moves (one,
        from play or genmove), and the step back (:meth:`BoardGame.undo_step`: the state slots
        that changed, not a copy of the game) goes on the undo stack; else the stack is emptied."""
        if keep_undo:
            self.undo_stack.append(game.undo_step(self.game))
        else:
            self.undo_stack = []
        self.game = game

    def _room(self) -> None:
        """GtpError once the game holds ``max_moves`` moves: the history and the undo stack stay
        bounded (O(1) memory per move, at most ``max_moves`` moves)."""
        if len(self.game.moves) >= self.max_moves:
            raise GtpError(f"game too long: this engine keeps at most {self.max_moves} moves "
                           "(clear_board starts a new game)")

    # -- protocol -------------------------------------------------------------------------------
    def handle(self, raw: str) -> str | None:
        """The full answer (ending with an empty line) to one input line, or None for no command."""
        line = clean_line(raw)
        if not line:
            return None
        words = line.split()
        cid = ""
        if words[0].isdigit():
            cid = words.pop(0)
            if not words:
                return f"?{cid} syntax error: no command after the id\n\n"
        name, args = words[0].lower(), words[1:]
        try:
            handler = getattr(self, "cmd_" + name.replace("-", "_"), None) if name in COMMANDS else None
            if handler is None:
                raise GtpError("unknown command")
            result = handler(args)
            if name == "lz-analyze":  # a multi-line answer of its own framing: "=[id]", lines, ""
                return f"={cid}\n" + "".join(line + "\n" for line in result) + "\n"
        except GtpError as exc:
            return f"?{cid} {exc}\n\n"
        except Exception as exc:  # a bug or an engine failure: report it, keep the position
            return f"?{cid} internal error: {type(exc).__name__}: {exc}"[:500].replace("\n", " ") + "\n\n"
        first, *rest = str(result).split("\n")
        rest = [ln if ln.strip() else "." for ln in rest]  # an empty line would end the answer
        return f"={cid} " + "\n".join([first] + rest) + "\n\n"

    def run(self, inp=None, out=None) -> int:
        """Serve commands from ``inp`` (a binary stream; default stdin) until quit or end of input."""
        inp = inp if inp is not None else sys.stdin.buffer
        out = out if out is not None else sys.stdout
        pending = None
        while not self.done:
            kind, text = pending if pending is not None else _next_line(inp)
            pending = None
            if kind == "eof":
                break
            if kind == "long":
                answer = "? line too long\n\n"
            else:
                stream = self._lz_stream(text, inp, out)
                if stream is not False:  # lz-analyze was served (streamed); the line that ended it
                    pending = stream
                    continue
                answer = self.handle(text)
            if answer is not None:
                out.write(answer)
                out.flush()
        return 0

    def _lz_stream(self, text, inp, out):
        """Serve an lz-analyze line as a stream (module docstring): False if ``text`` is another
        command, else the next input item (read while streaming) or None."""
        import threading

        line = clean_line(text)
        words = line.split()
        cid = words.pop(0) if words and words[0].isdigit() else ""
        if not words or words[0].lower() != "lz-analyze":
            return False
        try:
            session = self._lz_session(words[1:])
            # (the first interval before "=": a player whose search cannot run open-ended, e.g. a
            # policy bound to a budget, is answered "?" in one line, and the engine goes on)
            line = session.step() if session is not None else None
        except (GtpError, ValueError) as exc:
            message = str(exc).replace("\n", " ")
            out.write(f"?{cid} {message}\n\n")
            out.flush()
            return None
        out.write(f"={cid}\n")
        out.flush()
        got: list = []
        arrived = threading.Event()

        def read():
            got.append(_next_line(inp))
            arrived.set()

        reader = threading.Thread(target=read, daemon=True, name="gtp-lz-analyze-input")
        reader.start()
        interval = session.request.interval / 100.0 if session is not None else 0.0
        while line is not None:
            out.write(line + "\n")
            out.flush()
            pause = interval if (session.iterations is not None or session.full) else 0.0
            if arrived.wait(pause):
                break
            line = session.step()
        out.write("\n")
        out.flush()
        reader.join()
        return got[0]

    # -- commands -------------------------------------------------------------------------------
    def _nargs(self, args, lo, hi=None):
        hi = lo if hi is None else hi
        if not lo <= len(args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise GtpError(f"syntax error: expected {want} argument(s), got {len(args)}")

    def cmd_protocol_version(self, args):
        return "2"

    def cmd_name(self, args):
        return self.engine_name

    def cmd_version(self, args):
        return _version()

    # -- analysis (treepolicies.interop.gtp_analysis) --------------------------------------------------
    def _analysis_player(self):
        from treepolicies.players import MCTSPlayer

        if not isinstance(self.player, MCTSPlayer):
            raise GtpError(f"analysis needs an MCTS player (a bandit policy spec), not {self.player.name!r}")
        return self.player

    def _analysis_position(self, args, lo=0, hi=1):
        """(copy of the position with the colour to analyse to move, colour), or None when over."""
        self._nargs(args, lo, hi)
        colour = _colour(args[0]) if args else int(self.game.to_move)
        g = self._open_copy(colour, reopen=False)
        if g.terminal() and self.kind == "go" and g.state[H_PASSES] < 2:
            g.reopen()  # the move cap ends self-play, not a GTP session
        return (None if g.terminal() else g), colour

    def _gfx_search(self, args):
        from treepolicies.mcts.search import search

        player = self._analysis_player()
        g, colour = self._analysis_position(args)
        if g is None:
            raise GtpError("cannot analyse: the game is over")
        key = (g.state.tobytes(), tuple(g.moves), colour)
        if self._gfx_cache is None or self._gfx_cache[0] != key:
            from treepolicies.interop.gtp_analysis import GFX_STREAM

            stream = Stream(self.seed, GFX_STREAM, self.analyses)
            self.analyses += 1
            result = search(g, player.policy, iterations=player.playouts, seconds=player.seconds, seed=stream,
                            options=player.options, early_stop=False)
            self._gfx_cache = (key, g, result)
        return self._gfx_cache[1], self._gfx_cache[2], colour

    def cmd_gogui_analyze_commands(self, args):
        from treepolicies.interop.gtp_analysis import analyze_commands_answer

        return analyze_commands_answer()

    def cmd_banditree_visits(self, args):
        from treepolicies.interop.gtp_analysis import gfx_visits

        g, result, _ = self._gfx_search(args)
        return gfx_visits(g, result)

    def cmd_banditree_values(self, args):
        from treepolicies.interop.gtp_analysis import gfx_values

        g, result, colour = self._gfx_search(args)
        return gfx_values(g, result, colour)

    def cmd_banditree_pv(self, args):
        from treepolicies.interop.gtp_analysis import gfx_pv

        g, result, colour = self._gfx_search(args)
        return gfx_pv(g, result, colour)

    def _lz_session(self, args):
        """A started lz-analyze session, or None when the game is over (GtpError if malformed)."""
        from treepolicies.interop.gtp_analysis import LZ_STREAM, LzSession, parse_lz_args

        player = self._analysis_player()
        try:
            request = parse_lz_args(args, int(self.game.to_move), _colour)
        except ValueError as exc:
            raise GtpError(str(exc)) from None
        g, _ = self._analysis_position([("b", "w")[request.colour]], 1, 1)
        if g is None:
            return None
        stream = Stream(self.seed, LZ_STREAM, self.analyses)
        self.analyses += 1
        return LzSession(g, player, request, stream, self.analysis_iterations)

    def cmd_lz_analyze(self, args):
        """lz-analyze answered at once with one report (:meth:`run` streams it instead)."""
        session = self._lz_session(args)
        return [] if session is None else [session.step()]

    def cmd_known_command(self, args):
        self._nargs(args, 1)
        return "true" if args[0].lower() in COMMANDS else "false"

    def cmd_list_commands(self, args):
        return "\n".join(COMMANDS)

    def cmd_quit(self, args):
        self.done = True
        return ""

    def cmd_boardsize(self, args):
        self._nargs(args, 1)
        try:
            size = int(args[0])
        except ValueError:
            raise GtpError(f"syntax error: boardsize must be an integer, got {args[0][:20]!r}") from None
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpError(f"unacceptable size (valid: {MIN_SIZE}..{MAX_SIZE})")
        if self.kind == "go" and abs(self.komi) > size * size:  # the komi holds across sizes
            raise GtpError(f"unacceptable size: komi {self.komi:g} needs |komi| <= {size * size} on a "
                           f"{size}x{size} board; set komi first")
        self.game = self._new_game(size, self.komi)
        self.size, self.undo_stack = size, []
        self.player.reset()
        return ""

    def cmd_clear_board(self, args):
        self.game = self._new_game(self.size, self.komi)
        self.undo_stack = []
        self.player.reset()
        return ""

    def cmd_komi(self, args):
        self._nargs(args, 1)
        try:
            komi = float(args[0])
        except ValueError:
            raise GtpError(f"syntax error: komi must be a number, got {args[0][:20]!r}") from None
        if self.kind == "nogo":
            return ""  # NoGo has no komi; accepted and ignored
        try:
            komi = check_komi(komi, self.size, shown=args[0][:20])
        except ValueError as exc:
            raise GtpError(str(exc)) from None
        self.komi = komi
        g = self.game.copy()
        g.set_komi(komi)
        self.game = g
        return ""

    def _vertex(self, text):
        try:
            return self.game.str_to_move(text)
        except ValueError:
            if self.kind == "nogo" and text.lower() == "pass":
                raise GtpError("illegal move: NoGo has no pass") from None
            raise GtpError(f"syntax error: invalid vertex {text[:20]!r}") from None

    def cmd_play(self, args):
        self._nargs(args, 2)
        player = _colour(args[0])
        move = self._vertex(args[1])
        self._room()
        g = self._open_copy(player)
        if not g.is_legal(move):
            raise GtpError("illegal move")
        g.play(move)
        self._replace(g)
        self.player.observe(move)
        return ""

    def _open_copy(self, player: int, reopen: bool = True):
        """A copy of the position with ``player`` to move; Go: reopened (:meth:`Go.reopen`) if
        ``reopen``, so that every move legal by the rules can be played after two passes or the
        move cap (those end self-play games and playouts, not a GTP session)."""
        g = self.game.copy()
        if reopen and self.kind == "go":
            g.reopen()
        g.set_to_move(player)
        return g

    def cmd_genmove(self, args):
        self._nargs(args, 1)
        player = _colour(args[0])
        g = self._open_copy(player, reopen=False)
        if g.terminal() and self.kind == "nogo":
            return "resign"  # no legal move: nothing is played
        self._room()
        if g.terminal():
            if g.state[H_PASSES] >= 2:  # the Go game ended by two passes: agree, and record the pass
                g.reopen()
                g.play(g.PASS)
                self._replace(g)
                self.player.observe(g.PASS)
                return "pass"
            g.reopen()  # the move cap: it ends self-play, not a GTP session
        stream = Stream(self.seed, _GTP_STREAM, self.genmoves)
        self.genmoves += 1
        move = self.player.choose(g.copy(), stream)
        if not g.is_legal(move):
            raise GtpError(f"internal error: the player chose the illegal move {move!r}")
        if self.log is not None and getattr(self.player, "last", None) is not None:
            from treepolicies.viz.summary import format_record, search_record

            print(format_record(search_record(g, self.player.last), prefix=f"genmove {g.move_to_str(move)}: "),
                  file=self.log, flush=True)
        g.play(move)
        self._replace(g)
        self.player.observe(move)
        return g.move_to_str(move)

    def cmd_undo(self, args):
        if not self.undo_stack:
            raise GtpError("cannot undo")
        g = self.game.copy()
        g.revert(self.undo_stack[-1])  # the komi is not in the step: a komi command since holds
        self.undo_stack.pop()
        self.game = g
        self.player.reset()
        return ""

    def cmd_showboard(self, args):
        g, n = self.game, self.game.size
        from treepolicies.games.go import COLUMNS

        letters = "   " + " ".join(COLUMNS[:n])
        rows = [letters]
        for r, row in enumerate(g.diagram().split("\n")):
            rows.append(f"{n - r:2d} {row} {n - r:2d}")
        rows.append(letters)
        rows.append(f"{self.kind} {n}x{n}, {'Black' if g.to_move == 0 else 'White'} to move, "
                    f"{len(g.moves)} moves played" + (f", komi {g.komi:g}" if self.kind == "go" else ""))
        return "\n" + "\n".join(rows)

    def cmd_final_score(self, args):
        g = self.game
        if self.kind == "nogo":
            if not g.terminal():
                raise GtpError("cannot score: the NoGo game is not over")
            return g.result_string()
        return g.result_string()

    def cmd_loadsgf(self, args):
        from treepolicies.interop.sgf import load_sgf_file

        self._nargs(args, 1, 2)
        number = None
        if len(args) == 2:
            try:
                number = int(args[1])
            except ValueError:
                raise GtpError(f"syntax error: move number must be an integer, got {args[1][:20]!r}") from None
            if number < 1:
                raise GtpError("syntax error: move number must be >= 1")
            number -= 1  # GTP: the position before move `number` is played
        try:
            g = load_sgf_file(args[0], move_number=number, game=self.kind, max_moves=self.max_moves)
        except (OSError, ValueError) as exc:
            raise GtpError(f"cannot load file: {exc}"[:300]) from None
        self._replace(g, keep_undo=False)
        self.size = g.size
        if self.kind == "go":
            self.komi = g.komi
        self.player.reset()
        return "black" if g.to_move == 0 else "white"
