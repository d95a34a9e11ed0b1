"""The incremental board state against plain-Python recomputation from scratch.

Reference functions here (flood fill for chains, liberties, the Tromp-Taylor area, legality by
trial placement) know nothing of the engine's pseudo-liberties; after every move of long random
games, and at the end of compiled random playouts, the engine must agree with them.
"""
import numpy as np
import pytest

from bandits.rng import stream_state
from treepolicies.games import board as bd
from treepolicies.games.go import Go, go_is_legal, go_playout
from treepolicies.games.nogo import NoGo, nogo_playout

NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))


# -- plain-Python reference ------------------------------------------------------------------------
def ref_chains(board):
    """Chains of a (n, n) board (0 empty, 1 Black, 2 White): list of (colour, stones, liberties)."""
    n = len(board)
    seen, chains = set(), []
    for r in range(n):
        for c in range(n):
            if board[r][c] == 0 or (r, c) in seen:
                continue
            colour, stones, libs, stack = board[r][c], set(), set(), [(r, c)]
            seen.add((r, c))
            while stack:
                a, b = stack.pop()
                stones.add((a, b))
                for dr, dc in NEIGHBOURS:
                    x, y = a + dr, b + dc
                    if 0 <= x < n and 0 <= y < n:
                        if board[x][y] == 0:
                            libs.add((x, y))
                        elif board[x][y] == colour and (x, y) not in seen:
                            seen.add((x, y))
                            stack.append((x, y))
            chains.append((colour, stones, libs))
    return chains


def ref_area(board):
    """Tromp-Taylor: stones + empty regions reaching one colour only; Black minus White."""
    n = len(board)
    score, seen = 0, set()
    for r in range(n):
        for c in range(n):
            v = board[r][c]
            if v:
                score += 1 if v == 1 else -1
            elif (r, c) not in seen:
                region, reach, stack = 0, set(), [(r, c)]
                seen.add((r, c))
                while stack:
                    a, b = stack.pop()
                    region += 1
                    for dr, dc in NEIGHBOURS:
                        x, y = a + dr, b + dc
                        if 0 <= x < n and 0 <= y < n:
                            if board[x][y] == 0 and (x, y) not in seen:
                                seen.add((x, y))
                                stack.append((x, y))
                            elif board[x][y]:
                                reach.add(board[x][y])
                if reach == {1}:
                    score += region
                elif reach == {2}:
                    score -= region
    return score


def ref_after(board, r, c, colour):
    """Board after colour plays (r, c) with captures, and whether the mover's chain lives; None if occupied."""
    if board[r][c]:
        return None
    b = [row[:] for row in board]
    b[r][c] = colour
    captured = 0
    for col, stones, libs in ref_chains(b):
        if col != colour and not libs:
            captured += len(stones)
            for x, y in stones:
                b[x][y] = 0
    alive = all(libs for col, stones, libs in ref_chains(b) if (r, c) in stones)
    return b, captured, alive


def ref_eye(board, r, c, colour):
    n = len(board)
    for dr, dc in NEIGHBOURS:
        x, y = r + dr, c + dc
        if 0 <= x < n and 0 <= y < n and board[x][y] != colour:
            return False
    bad, edge = 0, 0
    for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
        x, y = r + dr, c + dc
        if 0 <= x < n and 0 <= y < n:
            bad += board[x][y] == 3 - colour
        else:
            edge = 1
    return bad + edge < 2


# -- the incremental state against the reference ---------------------------------------------------
def check_state(game):
    """Every incremental structure equals its recomputation from the board alone."""
    s, n = game.state, game.size
    w, npts = n + 2, int(game.state[bd.H_NPTS])
    sl = {name: s[bd.HDR + k * npts: bd.HDR + (k + 1) * npts]
          for k, name in enumerate(("board", "chain", "nxt", "nstones", "libc", "libs", "libq", "empties", "eidx"))}
    board = game.board().tolist()
    pad = lambda r, c: (r + 1) * w + c + 1  # noqa: E731
    ids = set()
    for colour, stones, libs in ref_chains(board):
        points = {pad(r, c) for r, c in stones}
        gid = int(sl["chain"][next(iter(points))])
        assert {int(sl["chain"][p]) for p in points} == {gid}, "one chain id per chain"
        assert gid not in ids, "distinct chains, distinct ids"
        ids.add(gid)
        walk, p = set(), gid
        while True:  # the circular list visits exactly the chain
            walk.add(p)
            p = int(sl["nxt"][p])
            if p == gid:
                break
        assert walk == points
        assert sl["nstones"][gid] == len(stones)
        pseudo = [pad(x + dr, y + dc) for x, y in stones for dr, dc in NEIGHBOURS
                  if 0 <= x + dr < n and 0 <= y + dc < n and board[x + dr][y + dc] == 0]
        assert sl["libc"][gid] == len(pseudo)
        assert sl["libs"][gid] == sum(pseudo)
        assert sl["libq"][gid] == sum(q * q for q in pseudo)
        assert bd.in_atari(s, gid) == (len(libs) == 1)
        assert bd.chain_liberties(s, gid) == len(libs) > 0
    empty = {pad(r, c) for r in range(n) for c in range(n) if board[r][c] == 0}
    ne = int(s[bd.H_NEMPTY])
    listed = [int(p) for p in sl["empties"][:ne]]
    assert sorted(listed) == sorted(empty)
    assert all(sl["eidx"][p] == i for i, p in enumerate(listed))
    assert int(s[bd.H_HASH]) == bd.position_hash(sl["board"])


def check_legality(game):
    """Legality and the search's move list agree with trial placement from scratch."""
    board, colour, n = game.board().tolist(), game.to_move + 1, game.size
    ko = int(game.state[bd.H_KO])
    expect_search = []
    for r in range(n):
        for c in range(n):
            after = ref_after(board, r, c, colour)
            p = (r + 1) * (n + 2) + c + 1
            if isinstance(game, NoGo):
                ok = after is not None and after[2] and after[1] == 0
                assert game.is_legal(r * n + c) == ok
                if ok:
                    expect_search.append(r * n + c)
            else:
                ok = after is not None and after[2] and p != ko and not game.terminal()
                assert bool(go_is_legal(game.state, r * n + c)) == ok
                if after is not None and not game.terminal():  # the playouts' fused test
                    assert bool(bd.go_playable(game.state, p, colour)) == (ok and not ref_eye(board, r, c, colour))
                if ok and not ref_eye(board, r, c, colour):
                    expect_search.append(r * n + c)
    if isinstance(game, Go):
        if not expect_search and not game.terminal():
            expect_search = [game.PASS]
        if game.terminal():
            expect_search = []
    assert game.kernels.legal(game.state, np.empty(game.max_moves, np.int64)) == len(expect_search)
    out = np.empty(game.max_moves, np.int64)
    k = game.kernels.legal(game.state, out)
    assert out[:k].tolist() == expect_search


@pytest.mark.parametrize("size,seed", [(5, 1), (9, 2), (7, 3)])
def test_long_random_go_games_keep_the_incremental_state_exact(size, seed):
    # moves drawn from every legal move (eye filling and passes included, so that large chains
    # die and the captured points come back as liberties), several games in a row
    rng = np.random.default_rng(seed)
    moves = captured = 0
    for _ in range(4):
        g = Go(size=size)
        while not g.terminal():
            legal = g.all_legal_moves()
            # rarely pass, so games run long
            choices = [m for m in legal if m != g.PASS] if rng.random() > 0.02 else legal
            before = (g.board() != 0).sum()
            g.play(int(rng.choice(choices or legal)))
            captured += max(0, before + 1 - (g.board() != 0).sum())
            moves += 1
            check_state(g)
            if moves % 7 == 0:
                check_legality(g)
    assert moves > 3 * size * size and captured > 2 * size * size  # long games, many captures


def test_random_nogo_games_keep_the_incremental_state_exact():
    rng = np.random.default_rng(5)
    for size in (5, 9):
        g = NoGo(size=size)
        while not g.terminal():
            g.play(int(rng.choice(g.legal_moves())))
            check_state(g)
            check_legality(g)
        check_legality(g)


@pytest.mark.parametrize("size", [5, 9])
def test_go_playouts_end_and_agree_with_the_final_board(size):
    g = Go(size=size)
    for seed in range(40):
        s = g.state.copy()
        go_playout(s, stream_state(seed, 0, 0))
        end = g.copy()
        end.state = s
        assert end.terminal()
        check_state(end)
        board = end.board().tolist()
        # score recomputed from scratch decides the result (komi 7.5: never a draw)
        black_wins = ref_area(board) - 7.5 > 0
        assert end.reward(0) == (1.0 if black_wins else 0.0)
        assert end.reward(1) == 1.0 - end.reward(0)
        if not end.capped:
            # ended by two passes: neither side has a legal non-eye move left
            for colour in (1, 2):
                for r in range(size):
                    for c in range(size):
                        after = ref_after(board, r, c, colour)
                        assert after is None or not after[2] or ref_eye(board, r, c, colour)


def test_nogo_playouts_end_with_the_loser_to_move():
    g = NoGo(size=9)
    for seed in range(40):
        s = g.state.copy()
        nogo_playout(s, stream_state(seed, 1, 0))
        end = g.copy()
        end.state = s
        check_state(end)
        board = end.board().tolist()
        colour = end.to_move + 1
        assert all(libs for _, _, libs in ref_chains(board))  # every chain breathes
        for r in range(9):
            for c in range(9):
                after = ref_after(board, r, c, colour)
                assert after is None or not after[2] or after[1] > 0  # no legal move for the mover
        assert end.reward(end.to_move) == 0.0 and end.reward(1 - end.to_move) == 1.0


def test_playouts_are_reproducible():
    g = Go(size=9)
    a, b = g.state.copy(), g.state.copy()
    go_playout(a, stream_state(7, 0, 0))
    go_playout(b, stream_state(7, 0, 0))
    assert (a == b).all()


def test_area_score_general_case_matches_reference():
    # positions with adjacent empty points take the flood-fill path
    rng = np.random.default_rng(11)
    for _ in range(30):
        g = Go(size=7)
        for _ in range(int(rng.integers(0, 40))):
            legal = g.legal_moves()
            if g.terminal():
                break
            g.play(int(rng.choice(legal)))
        assert bd.area_score(g.state) == ref_area(g.board().tolist())
