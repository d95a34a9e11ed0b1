"""The source part of a compiled kernel's key (``bandits.compiling.source_hash``): the SHA-256 of
the kernels' sources, read once per function object.  Before, every search read and tokenized the
source of each of its kernels again (``inspect.getsource``): 1.5 ms of a one-iteration search of
2 ms with the random rollout, 4.6 of 4.9 ms with MAST (best of 7, 9x9 Go)."""
import hashlib
import importlib.util
import inspect

import numba as nb

from bandits import compiling
from bandits.compiling import source_hash
from treepolicies.mcts import calls


def _module(path, name, body):
    path.write_text(body)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_hash_is_the_sha256_of_the_sources_in_order_with_none_as_a_dash(tmp_path):
    m = _module(tmp_path / "k1.py", "k1", "def f(x):\n    return x + 1\n\n\ndef g(x):\n    return 2 * x\n")
    # by hand: sha256 over "def f(x):\n    return x + 1\n", then "-", then g's source; 16 hex digits
    expect = hashlib.sha256(b"def f(x):\n    return x + 1\n" + b"-" + b"def g(x):\n    return 2 * x\n").hexdigest()[:16]
    assert source_hash((m.f, None, m.g)) == expect
    assert source_hash((m.g, None, m.f)) != expect
    assert source_hash((nb.njit(m.f), None, m.g)) == expect  # (a dispatcher: its Python function's source)


def test_the_source_is_read_once_per_function_and_again_for_a_new_function(tmp_path, monkeypatch):
    reads = []
    real = inspect.getsource

    def counting(obj):
        reads.append(obj.__name__)
        return real(obj)

    monkeypatch.setattr(compiling.inspect, "getsource", counting)
    m = _module(tmp_path / "k2.py", "k2", "def kern(s):\n    return s\n")
    first = calls._text((m.kern,))
    assert calls._text((m.kern,)) == first and reads == ["kern"]
    # the same name edited and loaded again: a new function object, read again, another key
    m2 = _module(tmp_path / "k3.py", "k2", "def kern(s):\n    return s + 1\n")
    second = calls._text((m2.kern,))
    assert reads == ["kern", "kern"]
    assert second.split("#")[0] == first.split("#")[0] == "k2.kern" and second != first


def test_a_function_typed_at_a_prompt_is_hashed_by_its_code_and_constants():
    ns1, ns2 = {}, {}
    exec("def h(x):\n    return x + 1\n", ns1)
    exec("def h(x):\n    return x + 2\n", ns2)
    assert source_hash((ns1["h"],)) != source_hash((ns2["h"],))
