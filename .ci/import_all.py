"""Import every module of the installed banditree (run from outside the source tree, so the wheel's
copy is the one imported) and say which file each package came from."""
import importlib
import pkgutil
import sys

failed = []
for top in ("bandits", "treepolicies", "testbeds"):
    package = importlib.import_module(top)
    print(f"{top}: {package.__file__}")
    if "site-packages" not in package.__file__:
        sys.exit(f"{top} was imported from {package.__file__}, not from the installed wheel")
    for info in pkgutil.walk_packages(package.__path__, top + "."):
        try:
            importlib.import_module(info.name)
        except Exception as exc:  # noqa: BLE001 - report them all
            failed.append(f"{info.name}: {type(exc).__name__}: {exc}")
if failed:
    sys.exit("modules that do not import from the wheel:\n" + "\n".join(failed))
print("every module imports from the wheel")
