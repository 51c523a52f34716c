"""The Brain-Score side, run for real: .ci/brainscore_demo.py against brainscore-vision 2.4.2.

Needs the separate Brain-Score environment (numpy<2, xarray<2022.6), so it runs only when
TOPONEURO_BRAINSCORE_PYTHON names its interpreter (``bash .ci/brainscore.sh`` builds
.venv-brainscore and runs the same script); otherwise it is skipped.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYTHON = os.environ.get("TOPONEURO_BRAINSCORE_PYTHON")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not PYTHON,
        reason="TOPONEURO_BRAINSCORE_PYTHON is not set: no brainscore-vision environment "
        "(build one with `bash .ci/brainscore.sh`, which also runs this check)",
    ),
]


def test_export_install_look_at_and_score_with_brainscore(tmp_path):
    env = dict(os.environ, TOPONEURO_BRAINSCORE_WORK=str(tmp_path),
               BS_INSTALL_DEPENDENCIES="no",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, str(REPO / ".ci" / "brainscore_demo.py")], env=env,
                          capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "OK in" in proc.stdout
