"""Monte-Carlo tree search whose node policy is any :mod:`bandits` policy; games and players.

    search(game, policy, budget=None, options=None, *, iterations=None, seconds=None, seed=0, **options)
    SearchOptions, Budget, OPTIONS (every search option, declared once), reroot
    UCT(c), MiUCT(r=...), MCTSPlayer, RandomPlayer, AlphaBetaPlayer, make_player(spec, ...)
    the named strongest player of each game: make_player("strong", ...) (treepolicies.strong)
    play_game, match, game_seed, wilson_interval; n players: play_seats, match_seats
    games: Nim, TicTacToe, ConnectFour, make_game, GAMES
    leaf evaluators: register_evaluator, EVALUATORS

The search itself is treepolicies.mcts (docs/architecture.md); internal contracts: docs/contracts.md.
"""
from treepolicies.alphabeta import alphabeta
from treepolicies.games import GAMES, ConnectFour, GameKernels, Nim, TicTacToe, make_game
from treepolicies.match import (GameRecord, MatchResult, SeatsResult, game_seed, match, match_seats, play_game,
                               play_seats, wilson_interval)
from treepolicies.players import (PLAYER_FACTORIES, AlphaBetaPlayer, MCTSPlayer, MiUCT, Player, RandomPlayer, UCT,
                                  make_player)
from treepolicies.mcts import EVALUATORS, OPTIONS, Budget, SearchOptions, SearchResult, register_evaluator, reroot, search
from treepolicies.interop import gtp_client as _gtp_client  # noqa: E402,F401  registers the "gnugo:level=N" player
from treepolicies import strong as _strong  # noqa: E402,F401  registers the "strong" player

__all__ = ["search", "SearchResult", "reroot", "alphabeta", "GameKernels", "GAMES", "make_game", "Nim",
           "TicTacToe", "ConnectFour", "Player", "MCTSPlayer", "RandomPlayer", "AlphaBetaPlayer", "UCT", "MiUCT",
           "make_player", "PLAYER_FACTORIES", "play_game", "match", "game_seed", "wilson_interval",
           "GameRecord", "MatchResult", "play_seats", "match_seats", "SeatsResult", "register_evaluator", "EVALUATORS", "SearchOptions", "Budget", "OPTIONS"]
