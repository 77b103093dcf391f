"""Reads and writes Codex CLI sessions: rollouts under CODEX_HOME, their lineage, and new rollouts Codex resumes."""
