"""Monte-Carlo tree search whose node policy is any :mod:`bandits` policy; games and players.

    search(game, policy, iterations=None, seconds=None, seed=0, final="robust", solver=False, ...)
    UCT(c), MiUCT(r=...), MCTSPlayer, RandomPlayer, AlphaBetaPlayer, make_player(spec, ...)
    play_game, match, game_seed, wilson_interval
    games: Nim, TicTacToe, ConnectFour, make_game, GAMES
"""
from treepolicies.games import GAMES, ConnectFour, GameKernels, Nim, TicTacToe, make_game
from treepolicies.search import SearchResult, reroot, search

__all__ = ["search", "SearchResult", "reroot", "GameKernels", "GAMES", "make_game", "Nim", "TicTacToe",
           "ConnectFour"]
