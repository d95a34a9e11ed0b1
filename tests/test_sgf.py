"""SGF FF[4]: write a finished game, read it back, get the same position, moves and result."""
import numpy as np
import pytest

from treepolicies.games.go import Go
from treepolicies.games.nogo import NoGo
from treepolicies.interop.sgf import MAX_SGF_BYTES, load_sgf, load_sgf_file, parse_sgf, read_sgf_file, write_sgf


def random_game(game, seed):
    rng = np.random.default_rng(seed)
    while not game.terminal():
        legal = game.legal_moves()
        game.play(int(legal[rng.integers(len(legal))]))
    return game


@pytest.mark.parametrize("seed", [0, 1])
def test_go_round_trip(seed):
    g = random_game(Go(size=9), seed)
    text = write_sgf(g, black="miucb:episodic=true", white="ucb1:c=0.5")
    for prop in ("FF[4]", "GM[1]", "SZ[9]", "KM[7.5]", "RU[Chinese]", "PB[miucb:episodic=true]",
                 "PW[ucb1:c=0.5]", f"RE[{g.result_string()}]"):
        assert prop in text
    back = load_sgf(text)
    assert isinstance(back, Go) and back.moves == g.moves
    assert (back.board() == g.board()).all() and back.to_move == g.to_move
    assert back.terminal() and back.result_string() == g.result_string()
    rec = parse_sgf(text)
    assert rec.result == g.result_string() and rec.black == "miucb:episodic=true" and rec.komi == 7.5
    # passes are written as B[] / W[] (the game ended by two passes or by the cap)
    assert g.moves.count(g.PASS) == text.count("B[]") + text.count("W[]")


def test_nogo_round_trip():
    g = random_game(NoGo(size=7), 3)
    text = write_sgf(g)
    assert "RU[NoGo]" in text and "KM[" not in text
    assert f"RE[{'W' if g.to_move == 0 else 'B'}+R]" in text
    back = load_sgf(text)
    assert isinstance(back, NoGo) and back.moves == g.moves and (back.board() == g.board()).all()
    assert back.terminal() and back.winner() == g.winner()


def test_position_at_a_move_number_and_from_a_file(tmp_path):
    g = Go(size=5)
    for m in (12, 6, 18):
        g.play(m)
    path = tmp_path / "game.sgf"
    path.write_text(write_sgf(g))
    two = load_sgf_file(str(path), move_number=2)
    assert two.moves == [12, 6] and two.to_move == 0
    assert load_sgf_file(path).moves == [12, 6, 18]
    assert load_sgf(path.read_text()).moves == [12, 6, 18]


def test_setup_stones_and_player_to_move_round_trip():
    g = Go.from_diagram("""
        . X . . .
        X O . . .
        . . . . .
        . . . . .
        . . . . .
    """, to_move=1)
    g.play(g.str_to_move("C5"))
    text = write_sgf(g)
    assert "AB[ba][ab]" in text and "AW[bb]" in text and "PL[W]" in text and ";W[ca]" in text
    back = load_sgf(text)
    assert (back.board() == g.board()).all() and back.setup == g.setup and back.moves == g.moves


def test_reader_keeps_the_main_line_and_handles_escapes():
    text = r"""(;FF[4]GM[1]SZ[5]KM[0.5]PB[a \] b\\]C[two
lines];B[cc](;W[bb];B[dd])(;W[dd]))"""
    rec = parse_sgf(text)
    assert rec.black == "a ] b\\" and rec.size == 5
    assert rec.moves == [(0, 12), (1, 6), (0, 18)]  # cc, bb, dd: the first variation
    g = load_sgf(text)
    assert g.moves == [12, 6, 18] and g.komi == 0.5


def test_names_with_brackets_are_escaped_when_written():
    g = Go(size=5)
    back = parse_sgf(write_sgf(g, black="x]y", white="back\\slash"))
    assert back.black == "x]y" and back.white == "back\\slash" and back.result == ""


@pytest.mark.parametrize("text,match", [
    ("no tree here", "no '\\('"),
    ("(;GM[1]SZ[5];B[cc]", "not closed"),
    ("(;GM[1]SZ[5];B[zz])", "two letters"),
    ("(;GM[2]SZ[5])", "GM"),
    ("(;GM[1]SZ[x])", "SZ"),
    ("(;GM[1]SZ[5];B[cc];W[cc])", "illegal"),
    ("(;GM[1]SZ[5];B[cc", "unterminated"),
    ("(;GM[1]SZ[25])", "size"),
])
def test_malformed_sgf_is_a_clear_error(text, match):
    with pytest.raises(ValueError, match=match):
        load_sgf(text)


def test_moves_out_of_turn_keep_their_colours():
    g = Go(size=5)
    g.play(0)
    g.set_to_move(0)  # Black again, as GTP allows
    g.play(1)
    text = write_sgf(g)
    assert ";B[aa];B[ba]" in text
    back = load_sgf(text)
    assert back.movers == [0, 0] and (back.board() == g.board()).all()


# -- a path and SGF text are separate arguments (issue 15, item 1) ---------------------------------
def test_text_is_never_opened_as_a_path(tmp_path):
    g = Go(size=5)
    g.play(12)
    real = tmp_path / "real.sgf"
    real.write_text(write_sgf(g))
    # text that happens to be the name of an existing file is text, not a path
    with pytest.raises(ValueError, match="load_sgf_file"):
        load_sgf(str(real))
    with pytest.raises(TypeError, match="load_sgf_file"):
        load_sgf(real)
    assert load_sgf_file(real).moves == [12]
    assert load_sgf_file(str(real), move_number=0).moves == []
    # a file whose content is the name of another file is not followed
    pointer = tmp_path / "pointer.sgf"
    pointer.write_text(str(real))
    with pytest.raises(ValueError, match="no '\\('"):
        load_sgf_file(pointer)


def test_only_regular_files_of_at_most_the_cap_are_read(tmp_path):
    import os

    with pytest.raises(ValueError, match="not a regular file"):
        read_sgf_file("/dev/zero")  # would be read without end
    with pytest.raises(ValueError, match="not a regular file"):
        read_sgf_file(tmp_path)  # a folder
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        read_sgf_file(fifo)  # opening it for reading would wait for a writer
    big = tmp_path / "big.sgf"
    with open(big, "wb") as f:
        f.truncate(MAX_SGF_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(ValueError, match=f"larger than {MAX_SGF_BYTES} bytes"):
        read_sgf_file(big)
    small = tmp_path / "small.sgf"
    small.write_bytes(b"(;GM[1]SZ[5]PB[\xff])")
    assert read_sgf_file(small) == "(;GM[1]SZ[5]PB[\ufffd])"  # undecodable bytes replaced
    with pytest.raises(FileNotFoundError):
        read_sgf_file(tmp_path / "missing.sgf")


# -- the board size is checked before anything is expanded (issue 15, item 2) ----------------------
@pytest.mark.parametrize("text,match", [
    # a rectangle of a million points on a 1000x1000 board: refused for its size, not expanded
    ("(;SZ[1000]AB[aa:" + chr(97 + 999) * 2 + "])", r"SZ \(board size\) must be an integer in 5\.\.19, got '1000'"),
    # the 22-byte record of the issue (10**10 points if the rectangle were expanded first)
    ("(;SZ[100000]AB[aa:\U000186ff\U000186ff])", r"SZ \(board size\) must be an integer in 5\.\.19, got '100000'"),
    ("(;SZ[3000000000])", r"SZ \(board size\) must be an integer in 5\.\.19, got '3000000000'"),
    ("(;SZ[4])", r"SZ \(board size\) must be an integer in 5\.\.19, got '4'"),
    ("(;SZ[9:7])", r"SZ \(board size\) must be a square board, got '9:7'"),
    ("(;SZ[9]AB[aa:zz])", "two letters a..i"),
    ("(;SZ[9]AB[aa:bb:cc])", "two letters a..i"),
    # a repeated rectangle could otherwise expand a 10 MB file to hundreds of millions of points
    ("(;SZ[19]AB" + "[aa:ss]" * 1000 + ")", "setup point 'aa' is given twice"),
    ("(;SZ[9]AB[cc]AW[aa:cc])", "setup point 'cc' is given twice"),
])
def test_board_size_is_checked_before_setup_is_expanded(text, match):
    with pytest.raises(ValueError, match=match):
        parse_sgf(text)


def test_square_size_with_both_sides_is_read():
    assert parse_sgf("(;SZ[7:7]AB[aa:bb])").setup == [(1, 0), (1, 1), (1, 7), (1, 8)]


# -- numbers (issue 15, item 3) --------------------------------------------------------------------
@pytest.mark.parametrize("km,match", [
    ("1e308", r"SGF KM \(komi\) must be a multiple of 0\.5 in -25\.\.25 on a 5x5 board, got '1e308'"),
    ("inf", r"SGF KM \(komi\) must be a multiple of 0\.5 in -25\.\.25 on a 5x5 board, got 'inf'"),
    ("nan", r"SGF KM \(komi\) must be a multiple of 0\.5 in -25\.\.25 on a 5x5 board, got 'nan'"),
    ("25.5", r"got '25\.5'"),
    ("6.25", r"got '6\.25'"),
    ("x", r"SGF KM \(komi\) must be a number, got 'x'"),
])
def test_bad_komi_in_sgf_is_a_clear_error(km, match):
    with pytest.raises(ValueError, match=match):
        load_sgf(f"(;GM[1]SZ[5]KM[{km}];B[cc])")


def test_komi_of_a_nogo_record_is_ignored():
    g = load_sgf("(;GM[1]SZ[5]RU[NoGo]KM[1e308];B[cc])")
    assert isinstance(g, NoGo) and g.moves == [12]


# -- records the GTP engine writes are read back (issue 15, item 4) --------------------------------
def test_a_game_going_on_after_two_passes_reads_back():
    from treepolicies.interop.gtp import GtpEngine

    e = GtpEngine(game="go", size=5, player="random")
    for cmd in ("play b pass", "play w pass", "play b c3", "play w pass", "play b pass"):
        assert e.handle(cmd) == "= \n\n"
    text = write_sgf(e.game)
    assert ";B[];W[];B[cc];W[];B[]" in text
    back = load_sgf(text)
    assert back.moves == [25, 25, 12, 25, 25] and back.movers == [0, 1, 0, 1, 0]
    assert back.terminal() and back.board()[2, 2] == 1 and back.to_move == 1
    assert load_sgf("(;GM[1]SZ[9];B[];W[];B[ee])").moves == [81, 81, 40]  # the record
    assert not load_sgf("(;GM[1]SZ[9];B[];W[];B[ee])").terminal()


def test_a_game_going_on_past_the_move_cap_reads_back():
    # 90 random stone moves on 5x5 (captures keep the board open), past the cap of 75 moves,
    # reopened there as GTP does; no two passes in a row, so only the cap is crossed
    rng = np.random.default_rng(5)
    g = Go(size=5)
    while len(g.moves) < 90:
        g.reopen()
        stones = [m for m in g.all_legal_moves() if m != g.PASS] or [g.PASS]
        g.play(int(stones[rng.integers(len(stones))]))
    assert g.move_cap == 150 and all(a != 25 or b != 25 for a, b in zip(g.moves, g.moves[1:]))
    text = write_sgf(g)
    back = load_sgf(text)
    assert back.moves == g.moves and (back.board() == g.board()).all() and back.move_cap == 150
    capped = load_sgf(text, move_number=75)
    assert capped.terminal() and capped.capped  # a record ending at the cap still ends there


def test_replay_still_refuses_moves_illegal_by_the_rules():
    with pytest.raises(ValueError, match=r"SGF move 4 \(B C3\) is illegal"):
        load_sgf("(;GM[1]SZ[5];B[cc];W[];B[];B[cc])")  # occupied, after the game end


# -- the work of reading a record is bounded, not only its bytes (issue 24, item 9) ----------------
MOST_MOVES, ITEMS_PER_MOVE = 20_000, 16  # the limits docs/go-nogo.md states


def test_the_move_and_item_limits_are_those_documented():
    from treepolicies.interop import sgf

    assert (sgf.MAX_SGF_MOVES, sgf.ITEMS_PER_MOVE) == (MOST_MOVES, ITEMS_PER_MOVE)


@pytest.mark.parametrize("shape, body, match", [
    # one pass past the limit: the parse stops at node 20 001 of the main line
    ("passes", lambda n, items: ";B[]" * (n + 1), r"main line has more than 20000 nodes"),
    # empty main-line nodes (no move at all) are held to the same limit
    ("empty nodes", lambda n, items: ";" * (n + 1), r"main line has more than 20000 nodes"),
    # variations off the main line: the root's tree, node and two values are items 1 to 4, each
    # variation adds 3 (its "(", ";" and value), so item 320 017 (past 16 * 20 001) comes in
    # variation (320 017 - 4) / 3 = 106 671 of the 106 673 written
    ("variations", lambda n, items: "(;B[aa])" * (items // 3 + 1), r"more than 320016 trees, nodes"),
    # escapes inside one comment value count one item each: after the root's 4 items, the node
    # and the value (5, 6), escape 320 011 is item 320 017 (of 320 016 written)
    ("escapes", lambda n, items: ";C[" + "\\]" * items + "]", r"more than 320016 trees, nodes"),
])
def test_a_record_past_the_limits_is_refused_where_the_limit_is_reached(shape, body, match):
    # the text goes on with a character no SGF may hold: a parse that read to the end would
    # report it ("unexpected character"), one that stops at the limit reports the limit
    n = MOST_MOVES
    text = "(;GM[1]SZ[9]" + body(n, ITEMS_PER_MOVE * (n + 1)) + "!)"
    with pytest.raises(ValueError, match=match):
        parse_sgf(text)


def test_a_record_of_the_most_moves_replays_with_one_superko_scan(monkeypatch):
    # the root's superko list (a scan of every candidate move, go_repeating_moves on n > 1
    # moves) matters only where a search starts: the replay writes it once, at the end, and the
    # position is the one move-by-move play gives (the list included: the whole state array)
    from treepolicies.games import go as go_module

    n = MOST_MOVES
    moves = ["B[]" if k % 2 == 0 else "W[]" for k in range(n - 3)] + ["B[ee]", "W[]", "B[]"]
    text = "(;GM[1]SZ[9]" + "".join(";" + m for m in moves) + ")"
    real, scans = go_module.go_repeating_moves, []

    def counted(state, cand, k, seen, out):
        if k > 1:
            scans.append(k)
        return real(state, cand, k, seen, out)

    monkeypatch.setattr(go_module, "go_repeating_moves", counted)
    g = load_sgf(text)
    assert len(g.moves) == n and len(scans) == 1
    monkeypatch.setattr(go_module, "go_repeating_moves", real)
    ref = Go(size=9, komi=0)  # the same moves by GTP's rule (no KM: komi 0), each play writing the list
    for player, code in parse_sgf(text).moves:
        if ref.terminal():
            ref.reopen()
        ref.set_to_move(player)
        ref.play(ref.PASS if code is None else code)
    assert (g.state == ref.state).all() and g.moves == ref.moves and (g._seen == ref._seen).all()
    assert g.legal_moves() == ref.legal_moves()


def test_soft_line_breaks_and_escapes_in_values():
    # FF[4]: "\" + newline is removed (a soft line break), "\" + any other character is that character
    rec = parse_sgf("(;GM[1]SZ[5]PB[a\\\nb\\\r\\]c\\\\]PW[\\x\\\\\\]];B[aa])")
    assert rec.black == "ab]c\\" and rec.white == "x\\]"
    with pytest.raises(ValueError, match="unterminated"):
        parse_sgf("(;GM[1]SZ[5]PB[abc\\")
