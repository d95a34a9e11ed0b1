"""Talking to other Go programs and tools: a GTP engine (gtp: GoGui, Sabaki, gomill, twogtp), its
analysis commands (gtp_analysis: GoGui's gfx commands, Leela Zero's lz-analyze), a client of external
GTP engines (gtp_client: GNU Go as a player, ``gnugo:level=N``) and SGF records (sgf)."""
