"""Scorers: official-compatible ClariQ metrics and generic ranking metrics through ranx."""
