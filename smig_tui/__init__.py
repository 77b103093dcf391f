"""smig: hand a coding-agent conversation from one agent and model to another."""

__version__ = "0.1.0"
