"""Agents that act through the environments' interfaces: bidding agents and card-play agents (`docs/agents.md`)."""
