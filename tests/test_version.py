import subprocess
import sys

from termux import __version__


def test_version_flag_prints_the_package_version() -> None:
    out = subprocess.run([sys.executable, "-m", "termux", "--version"], capture_output=True, text=True)
    assert out.returncode == 0
    assert out.stdout.strip() == f"termux {__version__}"
