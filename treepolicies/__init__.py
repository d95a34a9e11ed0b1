"""Monte-Carlo tree search whose node policy is any :mod:`bandits` policy; games and players."""
__all__: list[str] = []
