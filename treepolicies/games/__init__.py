"""Games: Python objects with the seeds' interface and compiled array games."""
__all__: list[str] = []
