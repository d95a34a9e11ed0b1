"""Rewrite the generated tables of docs/options.md from the declarations (treepolicies.mcts.options
and treepolicies.mcts.capabilities)::

    python -m treepolicies.mcts.write_docs [docs/options.md]
"""
import sys

from treepolicies.mcts.capabilities import write_docs

if __name__ == "__main__":
    write_docs(sys.argv[1] if len(sys.argv) > 1 else "docs/options.md")
