"""Crush's real-client driver (tests/e2e/drivers/crush.py): its source lists, and its resume skips with the reason.

Not an e2e test: it runs no client (there is none for Crush here), so it runs in the fast suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from drivers import PROMPT, all_drivers

from smig_tui.services import build_services


def test_the_crush_driver_installs_a_source_smig_lists_and_skips_resume_saying_why(
    isolated_homes: dict[str, Path], tmp_path: Path
) -> None:
    driver = all_drivers()["crush"]
    assert driver.AGENT == "crush" and driver.smig_env(isolated_homes) == {}
    project = tmp_path / "project"
    session_id = driver.install_source(isolated_homes, project, tmp_path)
    services = build_services()
    info = services.find_session(session_id)
    assert info.agent == "crush" and info.cwd == str(project)
    assert any("OSPREY" in message.text for message in services.load_session(info).messages)
    driver.prepare_receiver(isolated_homes, None)
    with pytest.raises(pytest.skip.Exception, match="cannot be installed or run offline here"):
        driver.resume(session_id, isolated_homes, project, None)
    assert PROMPT == "continue"
