"""PNG figures are stored with a palette (testbeds.plots.save_png) and look as rendered."""
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from testbeds.plots import save_png  # noqa: E402


def test_palette_png_matches_the_rendered_figure(tmp_path):
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.linspace(1, 10_000, 400)
    for k in range(9):  # nine curves, as in Figure 1
        ax.plot(x, np.log(x) * (k + 1), label=f"policy {k}")
    ax.legend()
    reference = io.BytesIO()
    fig.savefig(reference, format="png", dpi=100)
    save_png(fig, tmp_path / "f.png", dpi=100)
    plt.close(fig)
    rendered = np.asarray(Image.open(reference).convert("RGB"), dtype=np.int64)
    stored = Image.open(tmp_path / "f.png")
    assert stored.mode == "P"  # a palette image
    pixels = np.asarray(stored.convert("RGB"), dtype=np.int64)
    assert pixels.shape == rendered.shape
    error = np.abs(pixels - rendered).max(axis=2)
    # 256 palette colours chosen to cover the image: no pixel's channel moves by more than 12 of 255
    # (about 5%, invisible); most stay exact
    assert error.max() <= 12
    assert np.mean(error == 0) > 0.8
    assert (tmp_path / "f.png").stat().st_size < len(reference.getvalue())
