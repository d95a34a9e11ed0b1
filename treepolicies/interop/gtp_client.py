"""The client side of GTP: drive an external engine (GNU Go) as a banditree player.

``GtpClient(argv)`` starts an engine process and sends it commands (``send("genmove b")`` returns
the answer text or raises :class:`GtpEngineError` on a ``?`` answer).  :class:`GnuGoPlayer` is a
:class:`treepolicies.players.Player` for Go: before each ``genmove`` it brings the engine's board
in line with the game it is asked about (only the new moves, or ``clear_board`` and a replay when
the game is another one), so it can be used in ``treepolicies.match`` and ``banditree match``.

Importing this module registers the player kind ``gnugo`` in
``treepolicies.players.PLAYER_FACTORIES``: ``gnugo:level=10`` (levels 0..10; optional
``path=...`` to the executable; ``on_crash=pass|stop``: :class:`GnuGoPlayer`).  GNU Go is started as::

    gnugo --mode gtp --boardsize N --chinese-rules --komi K --level L
          --positional-superko --capture-all-dead --never-resign

(Chinese area scoring and positional superko as in :mod:`treepolicies.games.go`; capture-all-dead
so that its dead stones are removed before it passes, which an area count needs; never-resign
because a Go game here ends only by two passes or the move cap.)  The executable is looked up on
PATH, then in /usr/games (where Debian's ``gnugo`` package puts it).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from bandits.rng import make_stream, next_u64
from treepolicies.players import PLAYER_FACTORIES, Player

__all__ = ["GtpClient", "GtpEngineError", "GtpEngineEnded", "GnuGoPlayer", "find_gnugo", "RESTARTS", "ON_CRASH"]


class GtpEngineError(RuntimeError):
    """The engine answered ``? message``, died, or answered nonsense.  The command line reports it
    in one line with what is saved (``one_line``: testbeds.cli)."""

    one_line = True


class GtpEngineEnded(GtpEngineError):
    """The engine process ended (or closed its input) while it was sent a command."""


def find_gnugo(path: str | None = None) -> str | None:
    """Path of the gnugo executable (``path`` if given and executable), or None if not found."""
    if path:
        return path if os.access(path, os.X_OK) else None
    found = shutil.which("gnugo")
    if found:
        return found
    for folder in ("/usr/games", "/usr/local/games"):
        candidate = os.path.join(folder, "gnugo")
        if os.access(candidate, os.X_OK):
            return candidate
    return None


class GtpClient:
    """An engine process spoken to in GTP (one command at a time, answers read up to the empty line)."""

    def __init__(self, argv: list[str]):
        self.argv = list(argv)
        self._err = tempfile.TemporaryFile()  # the engine's stderr: its last line goes into the error
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._err, text=True, bufsize=1)
        except OSError as exc:
            self._err.close()
            raise GtpEngineError(f"cannot start {self.argv[0]!r}: {exc}") from None

    def how_it_ended(self) -> str:
        """The engine's exit in words (``killed by signal 11``, ``exit status 1``) and the last line
        it wrote to stderr, if any; after :class:`GtpEngineEnded` (kills an engine that lingers)."""
        code = self._reap()
        said = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        try:
            self._err.seek(0)
            last = [line for line in self._err.read()[-2000:].decode("utf-8", "replace").splitlines() if line.strip()]
        except (OSError, ValueError):
            last = []
        return said + (f", last words {last[-1].strip()[:200]!r}" if last else "")

    def _reap(self) -> int:
        """Wait up to 5 s for the engine to end, then kill it; its exit status."""
        try:
            return self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def send(self, command: str) -> str:
        """Send one command; the answer's text (after ``= ``), or GtpEngineError for ``? ...``."""
        if self.proc.poll() is not None:
            raise GtpEngineEnded(f"engine {self.argv[0]!r} is not running (exit status {self.proc.returncode})")
        try:
            self.proc.stdin.write(command.strip() + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise GtpEngineEnded(f"engine {self.argv[0]!r} closed its input: {exc}") from None
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise GtpEngineEnded(f"engine {self.argv[0]!r} ended while answering {command!r}")
            line = line.rstrip("\r\n")
            if not line.strip():
                if lines:
                    break
                continue  # blank lines before an answer
            lines.append(line)
        head = lines[0]
        body = "\n".join([head[1:].strip()] + lines[1:])  # no ids are sent, so none come back
        if head.startswith("="):
            return body
        if head.startswith("?"):
            raise GtpEngineError(f"engine answered {command!r} with: {body}")
        raise GtpEngineError(f"engine answered {command!r} with a line that is not GTP: {head[:100]!r}")

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except GtpEngineError:
                pass
            self._reap()
        for stream in (self.proc.stdin, self.proc.stdout, self._err):
            try:
                stream.close()
            except OSError:
                pass


#: fresh engines :meth:`GnuGoPlayer.choose` starts, on the replayed game, when the engine dies while
#: answering a ``genmove``: one tells a process that died (killed, out of memory) from a position that
#: crashes GNU Go [ours]
RESTARTS = 1
#: what :class:`GnuGoPlayer` does when its engine dies in a position after :data:`RESTARTS` restarts
ON_CRASH = ("pass", "stop")


class GnuGoPlayer(Player):
    """GNU Go at ``level`` (0..10) as a Go player over GTP (module docstring).

    A resignation (not expected: the engine runs with --never-resign) is played as a pass.

    An engine that dies while it chooses a move is restarted (:data:`RESTARTS` times a move): the
    fresh engine gets the game replayed and the next random seed of the player's stream.  If it
    dies again, the position crashes GNU Go: GNU Go 3.8 dies by a segmentation fault in rare
    positions (we met one in about 400 games of 9x9, where it died at every level and seed we
    tried; ``docs/go-nogo.md``).  Then ``on_crash="pass"`` (the default) plays a pass for it and says
    so on stderr (the next move starts a fresh engine; the game goes on and can be scored, at the
    cost of one move to GNU Go), and ``on_crash="stop"`` raises :class:`GtpEngineError` saying how
    the engine ended (a match stops there, its finished games saved; rerunning it meets the same
    position again).  Either way the same seed gives the same game.
    """

    def __init__(self, level: int = 10, path: str | None = None, on_crash: str = "pass"):
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 10:
            raise ValueError(f"gnugo level must be an integer in 0..10, got {level!r}")
        if on_crash not in ON_CRASH:
            raise ValueError(f"gnugo on_crash must be one of {', '.join(ON_CRASH)}, got {on_crash!r}")
        exe = find_gnugo(path)
        if exe is None:
            raise ValueError("gnugo executable not found (install it: apt-get install gnugo), "
                             f"or give path=...; looked for {path or 'gnugo on PATH and in /usr/games'}")
        self.level, self.exe, self.on_crash = level, exe, on_crash
        self.name = f"gnugo:level={level}"
        self.crashes = 0  # moves passed for the engine because the position crashed it (on_crash="pass")
        self.client = None
        self._key = None  # (size, komi, setup) the engine's game was set up for
        self._sent: list[tuple[int, int]] = []  # (player, move) the engine has

    def _argv(self, size, komi):
        return [self.exe, "--mode", "gtp", "--boardsize", str(size), "--chinese-rules", "--komi", f"{komi:g}",
                "--level", str(self.level), "--positional-superko", "--capture-all-dead", "--never-resign"]

    def _sync(self, game, rng) -> None:
        key = (game.size, float(getattr(game, "komi", 0.0)), tuple(game.setup))
        moves = list(zip(game.movers, game.moves))
        if self.client is not None and key == self._key and moves[:len(self._sent)] == self._sent:
            new = moves[len(self._sent):]
        else:
            if self.client is None:
                self.client = GtpClient(self._argv(game.size, key[1]))
            c = self.client
            c.send(f"boardsize {game.size}")
            c.send("clear_board")
            c.send(f"komi {key[1]:g}")
            c.send(f"set_random_seed {int(next_u64(make_stream(rng).state) % 2_000_000_000)}")
            for colour, code in game.setup:
                c.send(f"play {'bw'[colour - 1]} {game.move_to_str(code)}")
            self._key, self._sent = key, []
            new = moves
        for player, move in new:
            self.client.send(f"play {'bw'[player]} {game.move_to_str(move)}")
            self._sent.append((player, move))

    def choose(self, game, rng):
        if game.name != "go":
            raise ValueError(f"gnugo plays Go only, not {game.name!r}")
        command = f"genmove {'bw'[game.to_move]}"
        for attempt in range(RESTARTS + 1):
            try:
                self._sync(game, rng)
                answer = self.client.send(command).strip()
                break
            except GtpEngineEnded:  # (a '?' answer or nonsense is not a crash: raised as it is)
                ended = self.client.how_it_ended()
                self.close()  # the next _sync starts a fresh engine, replays the game, draws a new seed
                if attempt < RESTARTS:
                    continue
                said = (f"{self.name} ({self.exe}) ended {RESTARTS + 1} times while answering {command!r} at move "
                        f"{len(game.moves) + 1} of the game ({ended}), the last time a fresh engine on the "
                        "replayed game")
                if self.on_crash == "stop":
                    raise GtpEngineError(said) from None
                print(f"banditree: {said}; it passes this move (on_crash=pass)", file=sys.stderr, flush=True)
                self.crashes += 1
                return game.PASS  # (nothing sent: the next move replays the game on a fresh engine)
        move = game.PASS if answer.lower() in ("pass", "resign") else game.str_to_move(answer)
        self._sent.append((game.to_move, move))
        return move

    def reset(self) -> None:
        self._key, self._sent = None, []

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        self.reset()


def _gnugo_factory(params, playouts=None, seconds=None):
    unknown = set(params) - {"level", "path", "on_crash"}
    if unknown:
        raise ValueError(f"unknown parameter {sorted(unknown)[0]!r} for player 'gnugo'; valid: level, path, on_crash")
    raw = params.get("level", "10")
    try:
        level = int(raw)
    except ValueError:
        raise ValueError(f"gnugo level must be an integer in 0..10, got {raw!r}") from None
    return GnuGoPlayer(level=level, path=params.get("path"), on_crash=params.get("on_crash", "pass"))


PLAYER_FACTORIES["gnugo"] = _gnugo_factory
