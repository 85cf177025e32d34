"""Browser fixtures: Boardcast's own (Tests/browser/conftest.py: the server on port 0, headless
Chromium through selenium, a plain websocket client, screenshots checked and kept under
artifacts/screenshots/), loaded under a name of its own and pointed at this package's binary.

The binary: $TICTACTOE_SERVER, else Examples/TicTacToe/.build/debug/tictactoe-server.
Run: python3 -m pytest -q Examples/TicTacToe/Tests/browser

The test module imports the helpers as `boardcast_browser` (registered here, before it loads).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve()
PACKAGE = HERE.parents[2]  # Examples/TicTacToe
BOARDCAST = HERE.parents[4]
TICTACTOE_SERVER = os.environ.get("TICTACTOE_SERVER", str(PACKAGE / ".build" / "debug" / "tictactoe-server"))

_spec = importlib.util.spec_from_file_location("boardcast_browser", BOARDCAST / "Tests" / "browser" / "conftest.py")
boardcast_browser = importlib.util.module_from_spec(_spec)
sys.modules["boardcast_browser"] = boardcast_browser
_spec.loader.exec_module(boardcast_browser)
# Its ServerProcess starts the binary named by this module global (BOARDCAST_SERVER by default).
boardcast_browser.SERVER = TICTACTOE_SERVER

# Its fixtures, as this directory's.
server = boardcast_browser.server
client = boardcast_browser.client
browser = boardcast_browser.browser
