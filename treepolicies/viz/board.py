"""Board heatmaps of a search's root: visit shares and values, with the chosen move and the
principal variation (PV, the most-visited path) drawn on the board.

* Go-like boards (Go, NoGo, tic-tac-toe): two panels, the share of root visits of every move
  (visits_i / sum of root visits) and its value (the mean result for the player to move at the
  root, in [0, 1]; unvisited moves and points that are not root moves are blank).  The stones of
  the position are drawn, the PV as numbered stones (1 = the first move, colours alternating from
  the player to move) on the visits panel, the chosen move framed on both panels.  A pass is
  reported in the panel's title.
* Connect Four: the position with the PV as numbered discs, and bars per column of the visit
  shares and the values.

The numbers drawn are exactly :func:`board_grids` (``images[0]`` of each heatmap panel holds
them, as a masked array; Connect Four's bars have them as heights).
"""
from __future__ import annotations

import numpy as np

from treepolicies.viz._mpl import plt
from treepolicies.viz.summary import move_label, principal_variation

__all__ = ["board_layout", "board_grids", "stones", "root_heatmaps", "column_bars", "plot_root"]


def board_layout(game):
    """``(rows, cols, cell)`` for a game drawn as a board, ``cell(move) -> (row, col)`` or None
    (a pass); ``"columns"`` for Connect Four; None for a game with no board (Nim, ...)."""
    name = getattr(game, "name", "")
    if name in ("go", "nogo"):
        n = int(game.size)
        return n, n, lambda m: divmod(int(m), n) if 0 <= int(m) < n * n else None
    if name == "tictactoe":
        return 3, 3, lambda m: divmod(int(m), 3)
    if name == "connect4":
        return "columns"
    return None


def stones(game) -> np.ndarray:
    """The position as a (rows, cols) int array: 0 empty, 1 first player, 2 second (row 0 at the top)."""
    if getattr(game, "name", "") in ("go", "nogo"):
        return np.asarray(game.board(), np.int64)
    rows = [r for r in str(game).splitlines() if r.strip()]
    return np.array([[{"x": 1, "o": 2}.get(ch, 0) for ch in r.replace(" ", "")] for r in rows], np.int64)


def board_grids(game, result) -> dict:
    """The root's numbers placed on the board: ``visits`` (int, 0 off the root's moves), ``share``
    and ``value`` (float, NaN where there is no root move or, for values, no visit), and for a
    pass ``pass_visits`` / ``pass_share`` / ``pass_value`` (None when pass is not a root move).
    Connect Four: one row of 7 columns."""
    layout = board_layout(game)
    if layout is None:
        raise ValueError(f"{getattr(game, 'name', type(game).__name__)} has no board to draw; "
                         "board games: go, nogo, tictactoe, connect4")
    if layout == "columns":
        rows, cols, cell = 1, 7, (lambda m: (0, int(m)))
    else:
        rows, cols, cell = layout
    visits = np.zeros((rows, cols), np.int64)
    share = np.full((rows, cols), np.nan)
    value = np.full((rows, cols), np.nan)
    total = float(np.sum(result.visits))
    out = {"pass_visits": None, "pass_share": None, "pass_value": None}
    for m, v, q in zip(result.moves, result.visits, result.values):
        s = v / total if total else 0.0
        rc = cell(m)
        if rc is None:
            out.update(pass_visits=int(v), pass_share=s, pass_value=float(q) if v > 0 else None)
            continue
        visits[rc] = int(v)
        share[rc] = s
        value[rc] = float(q) if v > 0 else np.nan
    out.update(visits=visits, share=share, value=value)
    return out


def _draw_stones(ax, board, go_like: bool):
    for (r, c), s in np.ndenumerate(board):
        if s:
            ax.add_patch(plt.Circle((c, r), 0.42, facecolor="black" if s == 1 else "white",
                                    edgecolor="black", lw=0.8, zorder=3))


def _grid_lines(ax, rows, cols, go_like):
    if go_like:  # lines through the points
        for k in range(rows):
            ax.plot([0, cols - 1], [k, k], color="0.3", lw=0.5, zorder=1)
        for k in range(cols):
            ax.plot([k, k], [0, rows - 1], color="0.3", lw=0.5, zorder=1)
    else:  # cells
        for k in range(rows + 1):
            ax.plot([-0.5, cols - 0.5], [k - 0.5, k - 0.5], color="0.3", lw=0.8, zorder=1)
        for k in range(cols + 1):
            ax.plot([k - 0.5, k - 0.5], [-0.5, rows - 0.5], color="0.3", lw=0.8, zorder=1)


def _axes_labels(ax, game, rows, cols):
    if getattr(game, "name", "") in ("go", "nogo"):
        from treepolicies.games.go import COLUMNS
        ax.set_xticks(range(cols), list(COLUMNS[:cols]))
        ax.set_yticks(range(rows), [str(rows - r) for r in range(rows)])
    else:
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
    ax.tick_params(length=0, labelsize=7)


def _pv_cells(game, pv, cell):
    """[(number, (row, col) or None, player)] for the PV moves; player alternates from to_move."""
    player = int(game.to_move)
    out = []
    for k, m in enumerate(pv):
        out.append((k + 1, cell(m), player))
        player = 1 - player
    return out


def root_heatmaps(game, result, pv_length: int = 8, title: str | None = None):
    """The two-panel heatmap figure of a Go-like board (module docstring)."""
    layout = board_layout(game)
    if layout is None:
        board_grids(game, result)  # raises: no board
    if layout == "columns":
        raise ValueError("root_heatmaps draws Go-like boards (go, nogo, tictactoe); Connect Four: column_bars")
    rows, cols, cell = layout
    g = board_grids(game, result)
    board = stones(game)
    go_like = getattr(game, "name", "") in ("go", "nogo")
    pv = principal_variation(result, pv_length)
    chosen = cell(result.move)
    fig, axes = plt.subplots(1, 2, figsize=(4.2 * 2 + 1.2, 4.4), constrained_layout=True)
    panels = ((axes[0], "share", "visit share", "viridis", (0.0, max(1e-12, float(np.nanmax(g["share"])) if np.any(np.isfinite(g["share"])) else 1.0))),
              (axes[1], "value", "value for the player to move", "RdYlGn", (0.0, 1.0)))
    for ax, key, label, cmap, (lo, hi) in panels:
        data = np.ma.masked_invalid(g[key])
        im = ax.imshow(data, cmap=cmap, vmin=lo, vmax=hi, origin="upper", zorder=0,
                       extent=(-0.5, cols - 0.5, rows - 0.5, -0.5), alpha=0.85)
        fig.colorbar(im, ax=ax, shrink=0.8, label=label)
        _grid_lines(ax, rows, cols, go_like)
        _draw_stones(ax, board, go_like)
        if chosen is not None:
            r, c = chosen
            ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="red", lw=2.2, zorder=5))
        ax.set_xlim(-0.6, cols - 0.4)
        ax.set_ylim(rows - 0.4, -0.6)
        ax.set_aspect("equal")
        _axes_labels(ax, game, rows, cols)
        extra = ""
        if g["pass_visits"] is not None:
            pv_value = "-" if g["pass_value"] is None else f"{g['pass_value']:.2f}"
            extra = f"\npass: share {g['pass_share']:.3f}, value {pv_value}"
        ax.set_title(f"{label}{extra}", fontsize=9)
    for number, rc, player in _pv_cells(game, pv, cell):
        if rc is None:
            continue
        r, c = rc
        axes[0].add_patch(plt.Circle((c, r), 0.38, facecolor="black" if player == 0 else "white",
                                     edgecolor="red", lw=1.2, zorder=6, alpha=0.9))
        axes[0].text(c, r, str(number), ha="center", va="center", fontsize=8, zorder=7,
                     color="white" if player == 0 else "black", gid="pv")
    fig.suptitle(title or f"{getattr(game, 'name', '')}: {result.iterations} iterations, chosen "
                 f"{move_label(game, result.move)}; PV {' '.join(move_label(game, m) for m in pv)}", fontsize=10)
    return fig


def column_bars(game, result, pv_length: int = 8, title: str | None = None):
    """Connect Four: the position with the PV as numbered discs, and bars of visit shares and
    values per column (module docstring)."""
    if board_layout(game) != "columns":
        raise ValueError("column_bars draws Connect Four; Go-like boards: root_heatmaps")
    g = board_grids(game, result)
    board = stones(game)
    rows, cols = board.shape
    pv = principal_variation(result, pv_length)
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8), constrained_layout=True)
    ax = axes[0]
    ax.add_patch(plt.Rectangle((-0.5, -0.5), cols, rows, facecolor="#2c5fb3", zorder=0))
    for (r, c), s in np.ndenumerate(board):
        ax.add_patch(plt.Circle((c, r), 0.4, facecolor={0: "white", 1: "#d62728", 2: "#f2c200"}[int(s)],
                                edgecolor="black", lw=0.5, zorder=2))
    heights = [(board[:, c] != 0).sum() for c in range(cols)]
    player = int(game.to_move)
    for k, m in enumerate(pv):
        c = int(m)
        if heights[c] >= rows:
            break
        r = rows - 1 - heights[c]
        heights[c] += 1
        ax.add_patch(plt.Circle((c, r), 0.4, facecolor="#d62728" if player == 0 else "#f2c200",
                                edgecolor="black", lw=1.5, alpha=0.55, zorder=3))
        ax.text(c, r, str(k + 1), ha="center", va="center", fontsize=9, zorder=4, gid="pv")
        player = 1 - player
    ax.set_xlim(-0.6, cols - 0.4)
    ax.set_ylim(rows - 0.4, -0.6)
    ax.set_aspect("equal")
    ax.set_xticks(range(cols))
    ax.set_yticks([])
    ax.set_title("position and PV (x red, o yellow)", fontsize=9)
    chosen = int(result.move)
    for ax, key, label in ((axes[1], "share", "visit share"), (axes[2], "value", "value for the player to move")):
        heights = np.nan_to_num(g[key][0], nan=0.0)
        colours = ["#d62728" if c == chosen else "#4c72b0" for c in range(cols)]
        ax.bar(range(cols), heights, color=colours)
        ax.set_xticks(range(cols))
        ax.set_xlabel("column")
        ax.set_title(label + " (chosen column red)", fontsize=9)
        if key == "value":
            ax.set_ylim(0, 1)
            ax.axhline(0.5, color="0.5", lw=0.6, ls="--")
    fig.suptitle(title or f"connect4: {result.iterations} iterations, chosen {chosen}; "
                 f"PV {' '.join(str(int(m)) for m in pv)}", fontsize=10)
    return fig


def plot_root(game, result, pv_length: int = 8, title: str | None = None):
    """:func:`column_bars` for Connect Four, :func:`root_heatmaps` for Go-like boards."""
    if board_layout(game) == "columns":
        return column_bars(game, result, pv_length, title)
    return root_heatmaps(game, result, pv_length, title)
