"""Reads and writes Claude Code sessions: transcripts under CLAUDE_CONFIG_DIR/projects, and new ones Claude Code resumes."""
